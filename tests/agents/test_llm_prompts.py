"""Appendix C prompt cards rendered from typed inputs only; replies parsed strictly."""

import json

import pytest

from recmarket.agents.contracts import (
    CandidateView,
    CopyInput,
    DecisionInput,
    ExplanationInput,
    HeldOutTarget,
    NeedInput,
    PastInteraction,
    QueryInput,
    ReputationRecord,
    ReviewInput,
    ShortlistInput,
    ShownOption,
    StructuredNeed,
    UpdateInput,
    WeightedRecord,
)
from recmarket.agents.llm.cards import parse, render
from recmarket.agents.llm.parse import OutputError, extract_json
from recmarket.agents.llm.prefixes import common_prefix
from recmarket.catalogue.listing_copy import CopySetting
from recmarket.catalogue.policies import EXAGGERATION, PAPER_POLICIES, policy
from recmarket.data.items import ItemEvidence
from recmarket.profiles import PROFILE_BY_NAME

NEED = StructuredNeed(long_term_need="likes sturdy gear", current_need="2-person tent")
PAST = (PastInteraction(title="Old Tent", rating=4, review_title="ok", review_text="fine"),)
TARGET = HeldOutTarget(
    title="Alpine Tent - 2-person",
    rating=5,
    review_title="Great",
    review_text="Great for camping trips.",
)
ITEM = ItemEvidence(
    title="Trail Tent",
    category="Camping",
    description="A light tent.",
    description_source="description",
    features=("2-person",),
    average_rating=4.4,
    rating_number=12,
)
CANDIDATES = tuple(
    CandidateView(
        platform_id=f"P{i}", title=f"Tent {i}", category="Camping", explanation=f"Pitch {i}."
    )
    for i in range(1, 5)
)
PROFILE = PROFILE_BY_NAME["novice_advice"]


def shortlist_input(histories=None, k=2) -> ShortlistInput:
    return ShortlistInput(
        query_text="tent please", need=NEED, candidates=CANDIDATES, k=k, histories=histories
    )


def decision_input(platform_centric=False) -> DecisionInput:
    options = tuple(
        ShownOption(
            option_id=f"P{i}",
            rank=i,
            platform_id=f"P{i}",
            title=f"Tent {i}",
            category="Camping",
            explanation="Pitch.",
            reason=None if platform_centric else "fits",
        )
        for i in (1, 2)
    )
    return DecisionInput(
        query_text="tent please",
        instruction=PROFILE.instruction,
        options=options,
        platform_centric=platform_centric,
    )


INPUTS = {
    "query": QueryInput(domain="Sports_and_Outdoors", profile=PROFILE, history=PAST, target=TARGET),
    "need": NeedInput(history=PAST, query_text="tent please"),
    "explain": ExplanationInput(platform_id="P3", policy="exaggeration", need=NEED, item=ITEM),
    "copywriter": CopyInput(
        strategy=CopySetting.model_validate({"copy": "copy-stuffing"}), need=NEED, item=ITEM
    ),
    "shortlist": shortlist_input(),
    "decide": decision_input(),
    "review": ReviewInput(
        query_text="tent please",
        profile=PROFILE,
        target=TARGET,
        item=ITEM,
        explanation="The perfect tent!",
    ),
    "update": UpdateInput(
        query_text="tent please",
        need=NEED,
        platform_id="P2",
        item_title="Trail Tent",
        item_category="Camping",
        explanation="The perfect tent!",
        reason="fits",
        review="Leaky.",
    ),
}


@pytest.mark.parametrize("role", list(INPUTS))
def test_every_role_renders_its_card_from_its_input(role: str) -> None:
    system, user = render(role, INPUTS[role])
    assert system["role"] == "system" and user["role"] == "user"
    assert "$" not in user["content"]  # every placeholder filled
    assert "Output:" in user["content"]


OTHER_NEED = StructuredNeed(long_term_need="plays at night", current_need="quiet keyboard")


def _elsewhere(role: str):
    """The role's input with every per-call field changed (profile and policy kept)."""
    inp = INPUTS[role]
    changes = {
        "query": {
            "domain": "Video_Games",
            "history": (),
            "target": TARGET.model_copy(update={"title": "Pad"}),
        },
        "need": {"query_text": "a keyboard", "history": ()},
        "explain": {
            "platform_id": "P5",
            "need": OTHER_NEED,
            "item": ITEM.model_copy(update={"title": "Key"}),
        },
        "copywriter": {"need": OTHER_NEED, "item": ITEM.model_copy(update={"title": "Key"})},
        "shortlist": {"query_text": "a keyboard", "need": OTHER_NEED, "candidates": CANDIDATES[:3]},
        "decide": {"query_text": "a keyboard"},
        "review": {"query_text": "a keyboard", "explanation": "Fine."},
        "update": {"query_text": "a keyboard", "need": OTHER_NEED, "review": "Great."},
    }[role]
    return inp.model_copy(update=changes)


@pytest.mark.parametrize("role", list(INPUTS))
def test_every_card_puts_its_static_part_first_for_prefix_caches(role: str) -> None:
    """Two calls of a role with nothing per-call in common still share the whole system
    message and the task, rules and output format: a provider's prefix cache serves them."""
    first, second = (render(role, inp) for inp in (INPUTS[role], _elsewhere(role)))
    assert first[0] == second[0]
    a, b = first[1]["content"], second[1]["content"]
    shared = common_prefix(a, b)
    assert a.index("Output:") < shared
    assert shared >= 0.3 * len(a)


def test_only_query_and_review_prompts_carry_the_target() -> None:
    for role, inp in INPUTS.items():
        text = json.dumps(render(role, inp))
        assert ("Alpine Tent" in text) == (role in ("query", "review")), role


def test_the_platform_card_carries_its_policy_block() -> None:
    text = render("explain", INPUTS["explain"])[1]["content"]
    assert "promotional_exaggeration" in text
    assert EXAGGERATION.guidance in text and EXAGGERATION.implementation_id in text


def test_no_rep_shortlists_omit_histories_and_the_rep_addition() -> None:
    no_rep = render("shortlist", shortlist_input())[1]["content"]
    assert "history_reputation_profile" not in no_rep and "claim-calibration" not in no_rep
    rep = render(
        "shortlist",
        shortlist_input(
            histories={
                "P1": (ReputationRecord(claim_reliability="mixed", note="heavier than promised"),),
                "P2": (),
            }
        ),
    )
    text = rep[1]["content"]
    assert "history_reputation_profile" in text and "claim-calibration" in text
    assert "heavier than promised" in text
    for name in PAPER_POLICIES:
        assert name not in no_rep.lower().split() and policy(name).implementation_id not in text


def test_the_rep_instruction_alone_is_the_rep_card_with_every_history_empty() -> None:
    """rep-instruction (issue 63): the model reads LocalRep's addition and an empty profile
    for every platform, so the instruction's effect is measured apart from the records'."""
    instructed = render("shortlist", shortlist_input(histories={"P1": (), "P2": ()}))
    text = instructed[1]["content"]
    assert "claim-calibration" in text and "history_reputation_profile" in text
    assert '{"P1": [], "P2": []}' in text


def test_beta_and_decay_shortlists_summarise_the_evidence_and_window_ones_do_not() -> None:
    low = ReputationRecord(claim_reliability="low", note="overstated")
    half = WeightedRecord(claim_reliability="low", note="overstated", weight=0.5)
    histories = {"P1": (half, low), "P2": ()}
    window = render("shortlist", shortlist_input(histories={"P1": (low, low), "P2": ()}))
    assert "reputation_evidence" not in window[1]["content"]
    decayed = shortlist_input(histories=histories).model_copy(update={"mechanism": "decay"})
    text = render("shortlist", decayed)[1]["content"]
    summary = json.loads(text.split("reputation_evidence")[1].split(":\n", 1)[1].split("\n")[0])
    assert summary["P1"]["evidence"] == 1.5 and summary["P1"]["records"] == 2
    assert summary["P1"]["posterior_low"] == round(2.5 / 4.5, 2)
    assert summary["P2"] == {
        "records": 0,
        "evidence": 0,
        "posterior_high": 0.33,
        "posterior_mixed": 0.33,
        "posterior_low": 0.33,
        "uncertainty": 0.24,
        "sparse": True,
    }  # no records: the prior, called sparse rather than bad
    assert "older records count less" in text and '"weight": 0.5' in text


def test_a_long_beta_history_is_listed_in_part_and_summarised_in_full() -> None:
    records = tuple(
        ReputationRecord(claim_reliability="high", note=f"record {i}") for i in range(25)
    )
    beta = shortlist_input(histories={"P1": records, "P2": ()}).model_copy(
        update={"mechanism": "beta"}
    )
    text = render("shortlist", beta)[1]["content"]
    assert "at most the 10 latest" in text
    assert "record 15" in text and "record 24" in text and "record 14" not in text
    summary = json.loads(text.split("reputation_evidence")[1].split(":\n", 1)[1].split("\n")[0])
    assert summary["P1"]["records"] == 25


def test_platform_centric_decision_card_says_so() -> None:
    assert "no user agent" in render("decide", decision_input(True))[1]["content"]
    assert "user_agent_reason" not in render("decide", decision_input(True))[1]["content"]


@pytest.mark.parametrize(
    "reply",
    [
        '```json\n{"query_text": "a tent"}\n```',
        'Sure, here you go: {"query_text": "a tent"} Hope it helps!',
        '{"query_text": "a tent"}',
    ],
)
def test_json_is_found_in_fences_and_prose(reply: str) -> None:
    assert parse("query", reply, INPUTS["query"]).query_text == "a tent"


@pytest.mark.parametrize(
    ("reply", "complaint"),
    [
        ('{"query_text": "a tent",}', "no valid JSON object"),
        (
            '{"ranked_items": [{"platform_id": "P9", "user_agent_reason": "x"}, '
            '{"platform_id": "P1", "user_agent_reason": "y"}]}',
            "unknown platform ids ['P9']",
        ),
        (
            '{"ranked_items": [{"platform_id": "P1", "user_agent_reason": "x"}, '
            '{"platform_id": "P1", "user_agent_reason": "y"}]}',
            "duplicate platform ids",
        ),
        ('{"ranked_items": [{"platform_id": "P1", "user_agent_reason": "x"}]}', "rank exactly 2"),
    ],
)
def test_shortlist_violations_get_specific_complaints(reply: str, complaint: str) -> None:
    with pytest.raises(OutputError, match=complaint.replace("[", r"\[").replace("]", r"\]")):
        parse("shortlist", reply, INPUTS["shortlist"])


def test_decisions_must_pick_a_shown_option_or_none() -> None:
    inp = INPUTS["decide"]
    assert parse("decide", '{"decision": "no_purchase", "reason": "meh"}', inp).option_id is None
    chosen = parse("decide", '{"decision": "purchase", "selected_platform_id": "P2"}', inp)
    assert chosen.option_id == "P2"
    with pytest.raises(OutputError, match="was not shown"):
        parse("decide", '{"decision": "purchase", "selected_platform_id": "P7"}', inp)
    with pytest.raises(OutputError, match="purchase"):
        parse("decide", '{"decision": "maybe"}', inp)


def test_updates_need_a_known_label_and_a_short_note() -> None:
    inp = INPUTS["update"]
    record = parse("update", "claim_reliability=mixed; heavier than the pitch implied", inp)
    assert record.claim_reliability == "mixed"
    assert (
        parse("update", '{"claim_reliability": "HIGH", "note": "ok"}', inp).claim_reliability
        == "high"
    )
    with pytest.raises(OutputError, match="not one of high, mixed, low"):
        parse("update", '{"claim_reliability": "excellent", "note": "ok"}', inp)
    with pytest.raises(OutputError, match="at most 30"):
        parse("update", json.dumps({"claim_reliability": "low", "note": "w " * 31}), inp)


def test_plain_text_roles_are_bounded() -> None:
    assert (
        parse("explain", '"A fine tent. Light."', INPUTS["explain"]).text == "A fine tent. Light."
    )
    with pytest.raises(OutputError, match="at most 3 sentences"):
        parse("review", "One. Two. Three. Four.", INPUTS["review"])
    with pytest.raises(OutputError, match="empty"):
        parse("review", "  ", INPUTS["review"])
    with pytest.raises(OutputError):
        extract_json("no braces here")


def copy_input(name: str, **params) -> CopyInput:
    strategy = CopySetting.model_validate({"copy": name, "params": params})
    need = StructuredNeed(long_term_need="", current_need="light waterproof 2-person tent")
    return CopyInput(strategy=strategy, need=need, item=ITEM)


@pytest.mark.parametrize(
    ("name", "params", "faithful", "allowance"),
    [
        ("copy-emphasis", {"intensity": 1.0}, True, 2),  # light, 2-person: the item states them
        ("copy-stuffing", {"intensity": 1.0}, False, 3),  # light, waterproof, 2-person
        ("copy-stuffing", {"intensity": 0.3}, False, 1),
        ("copy-optimised", {"faithful": False}, False, 2),
        ("copy-optimised", {}, True, 1),
    ],
)
def test_the_copywriter_is_told_its_strategys_constraint_and_allowance(
    name: str, params: dict, faithful: bool, allowance: int
) -> None:
    user = render("copywriter", copy_input(name, **params))[1]["content"]
    assert ("Never invent an objective attribute" in user) is faithful
    assert ("whether or not the item's own fields mention them" in user) is not faithful
    assert f"Allowance: at most {allowance} of the request's words." in user


def test_a_rewritten_listing_is_read_within_its_bounds() -> None:
    inp = copy_input("copy-stuffing")
    listing = parse("copywriter", '{"title": "Tent - Trail Tent", "description": ""}', inp)
    assert (listing.title, listing.description) == ("Tent - Trail Tent", "")
    for reply, complaint in [
        ('{"description": "x"}', "'title' must be a non-empty string"),
        (json.dumps({"title": "T", "description": "word " * 300}), "at most 200 allowed"),
        (json.dumps({"title": "word " * 61, "description": ""}), "at most 60 allowed"),
    ]:
        with pytest.raises(OutputError, match=complaint):
            parse("copywriter", reply, inp)


def test_the_fake_copywriter_keeps_to_the_constrained_rules() -> None:
    from recmarket.agents.llm.cards import fake_answer

    for name, word in (("copy-emphasis", "Light"), ("copy-stuffing", "Light")):
        user = render("copywriter", copy_input(name))[1]["content"]
        assert json.loads(fake_answer("copywriter", user))["title"] == f"{word} - Trail Tent"
    need = StructuredNeed(long_term_need="", current_need="waterproof tent")
    lacking = CopyInput(strategy=copy_input("copy-emphasis").strategy, need=need, item=ITEM)
    user = render("copywriter", lacking)[1]["content"]
    assert json.loads(fake_answer("copywriter", user))["title"] == "Trail Tent"
    stuffed = lacking.model_copy(update={"strategy": copy_input("copy-stuffing").strategy})
    user = render("copywriter", stuffed)[1]["content"]
    assert json.loads(fake_answer("copywriter", user))["title"] == "Waterproof - Trail Tent"


def test_the_review_prompt_shows_a_rewritten_listing_and_reads_as_before_without_one() -> None:
    from recmarket.agents.contracts import Listing

    plain = render("review", INPUTS["review"])[1]["content"]
    assert plain.endswith("Pre-purchase recommendation explanation: The perfect tent!")
    listing = Listing(title="Waterproof - Trail Tent", description="A light tent.\n- waterproof")
    shown = render("review", INPUTS["review"].model_copy(update={"listing": listing}))
    text = shown[1]["content"]
    assert text.startswith(plain) and "- title: Waterproof - Trail Tent" in text
