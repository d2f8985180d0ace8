"""Information boundaries (Sections 3.1, B.3, Appendix C): a leak must be a type error."""

import json
import typing

import pytest
from pydantic import BaseModel
from pydantic.fields import FieldInfo

from recmarket.agents.contracts import (
    Contract,
    DecisionInput,
    ExplanationInput,
    HeldOutTarget,
    NeedInput,
    QueryInput,
    ReputationRecord,
    ReviewInput,
    ShortlistInput,
    UpdateInput,
)
from recmarket.agents.roles import ROLE_TYPES
from recmarket.catalogue.policies import PolicyName
from recmarket.profiles import Profile
from recmarket.vocabulary import ROLES


def field_types(model: type[BaseModel]) -> set[object]:
    """Every model or enum type reachable from a model's fields, and ``PolicyName`` where a
    field is a policy name (pydantic keeps its validator as the field's metadata)."""
    found: set[object] = set()
    policy_metadata = list(typing.get_args(PolicyName)[1:])

    def visit_field(f: FieldInfo) -> None:
        if f.metadata == policy_metadata:
            found.add(PolicyName)
        visit(f.annotation)

    def visit(annotation: object) -> None:
        for arg in typing.get_args(annotation) or ():
            visit(arg)
        if isinstance(annotation, type):
            found.add(annotation)
            if issubclass(annotation, BaseModel):
                for f in annotation.model_fields.values():
                    visit_field(f)

    for f in model.model_fields.values():
        visit_field(f)
    return found


def field_names(model: type[BaseModel]) -> set[str]:
    names = set(model.model_fields)
    for t in field_types(model):
        if isinstance(t, type) and issubclass(t, BaseModel):
            names |= set(t.model_fields)
    return names


@pytest.mark.parametrize("blind", [ShortlistInput, DecisionInput, UpdateInput, NeedInput])
def test_user_agent_and_decision_see_no_target_policy_or_profile(blind) -> None:
    types = field_types(blind)
    assert HeldOutTarget not in types
    assert PolicyName not in types
    assert Profile not in types
    assert not {"target", "policy", "profile", "profile_name", "is_target"} & field_names(blind)


def test_only_query_generation_and_review_see_the_target() -> None:
    seeing = {role for role, (inp, _) in ROLE_TYPES.items() if HeldOutTarget in field_types(inp)}
    assert seeing == {"query", "review"}
    assert Profile in field_types(QueryInput) and Profile in field_types(ReviewInput)


def test_platform_sees_its_policy_but_not_the_profile_or_target() -> None:
    types = field_types(ExplanationInput)
    assert PolicyName in types
    assert Profile not in types and HeldOutTarget not in types


def test_contracts_reject_unknown_fields_and_long_notes() -> None:
    with pytest.raises(ValueError, match="Extra inputs"):
        UpdateInput(
            query_text="q",
            need={"long_term_need": "", "current_need": ""},
            platform_id="P1",
            item_title="t",
            item_category="c",
            explanation="e",
            reason="r",
            review="v",
            policy="strict",
        )
    with pytest.raises(ValueError, match="at most 30"):
        ReputationRecord(claim_reliability="high", note=" ".join(["word"] * 31))
    with pytest.raises(ValueError):
        ReputationRecord(claim_reliability="great", note="fine")


def test_the_role_bundle_has_every_role_in_round_order_with_its_contracts() -> None:
    assert tuple(ROLE_TYPES) == ROLES
    for inp, out in ROLE_TYPES.values():
        assert issubclass(inp, Contract) and issubclass(out, Contract)


def test_a_stored_shortlist_input_reads_back_its_weighted_records() -> None:
    """Under the decay mechanism records carry a weight; a stored input (calibration, show)
    validates back into the same records, weighted where they were."""
    from recmarket.agents.contracts import (
        ReputationRecord,
        ShortlistInput,
        StructuredNeed,
        WeightedRecord,
    )

    need = StructuredNeed(long_term_need="tents", current_need="a tent")
    records = (
        WeightedRecord(claim_reliability="low", note="overstated", weight=0.5),
        ReputationRecord(claim_reliability="high", note="held up"),
    )
    stored = ShortlistInput(
        query_text="tent", need=need, candidates=(), k=1, histories={"P1": records}
    ).model_dump_json()
    again = ShortlistInput.model_validate_json(stored)
    assert [type(r) for r in again.histories["P1"]] == [WeightedRecord, ReputationRecord]
    assert [r.counted for r in again.histories["P1"]] == [0.5, 1.0]


def test_settings_added_later_are_absent_from_the_json_at_their_default() -> None:
    """Stored calls and call keys of runs made before a setting existed must stay the same:
    the field appears in the JSON only when set, exactly as a wrapping serializer wrote it."""
    from recmarket.agents.contracts import ExplanationInput, ShortlistInput, StructuredNeed
    from recmarket.data.items import ItemEvidence

    need = StructuredNeed(long_term_need="tents", current_need="a tent")
    item = ItemEvidence(
        title="Tent", category="Camping", description="", description_source="none", features=()
    )
    plain = ExplanationInput(platform_id="P1", policy="strict", need=need, item=item)
    assert plain.model_dump_json().startswith('{"platform_id":"P1","policy":"strict","need":')
    assert "intensity" not in plain.model_dump()
    lifted = plain.model_copy(update={"intensity": 0.5})
    assert '"policy":"strict","intensity":0.5,"need"' in lifted.model_dump_json()
    shortlist = ShortlistInput(query_text="tent", need=need, candidates=(), k=1)
    assert json.loads(shortlist.model_dump_json()) == {
        "query_text": "tent",
        "need": need.model_dump(),
        "candidates": [],
        "k": 1,
        "histories": None,
    }
    decayed = shortlist.model_copy(update={"mechanism": "decay"}).model_dump_json()
    assert decayed.endswith('"histories":null,"mechanism":"decay"}')
