"""The offline behavioural model: each mechanism the paper's patterns rest on."""

import asyncio
from collections import Counter

import numpy as np
import pytest

from recmarket.agents.contracts import (
    CandidateView,
    DecisionInput,
    ExplanationInput,
    HeldOutTarget,
    ReputationRecord,
    ReviewInput,
    ShortlistInput,
    ShownOption,
    StructuredNeed,
    UpdateInput,
)
from recmarket.agents.rules.agent import RuleRanker, RuleUpdater, trust
from recmarket.agents.rules.params import RankerParams
from recmarket.agents.rules.platform import RuleExplainer, evidence_text
from recmarket.agents.rules.text import assertiveness, confidence, terms
from recmarket.agents.rules.user import RuleDecision, RuleReview
from recmarket.data import BUNDLED_DATA_DIR
from recmarket.data.domain import domain_files, load_domain
from recmarket.market.policies import Policy
from recmarket.profiles import PROFILE_BY_NAME, PROFILES

run = asyncio.run
TEMPLATE_TERMS = terms(
    "lists listed under appears match your request on but the listing does not state so fit "
    "there is uncertain only partial average rating of modest has little detail beyond its "
    "feature list practical option for this trade-off rating is only average details are "
    "limited perfect choice you can't go wrong with exactly what you're looking for make "
    "outstanding hassle-free pick loved by buyers at stars smart effortless solution you'll "
    "love uncategorized untitled how fits"
)


@pytest.fixture(scope="module")
def items():
    return load_domain(domain_files(BUNDLED_DATA_DIR, "Sports_and_Outdoors")).items[:300]


def explain(item, policy, need="lightweight waterproof tent for camping trips"):
    inp = ExplanationInput(
        platform_id="P1",
        policy=policy,
        item=item.evidence,
        need=StructuredNeed(long_term_need="", current_need=need),
    )
    return run(RuleExplainer()(inp, seed=7)).text


@pytest.mark.parametrize("policy", list(Policy))
def test_explanations_never_claim_an_attribute_the_evidence_lacks(items, policy) -> None:
    needs = [
        "lightweight waterproof tent for camping trips",
        "red kettlebell 25 lb",
        "beginner yoga mat cork 1/4 inch",
        "carbon fiber trekking poles twist lock",
    ]
    for item, need in ((it, n) for it in items for n in needs):
        text = explain(item, policy, need)
        claimed = terms(text) - TEMPLATE_TERMS - terms(evidence_text(item.evidence))
        if policy is Policy.EXAGGERATION:
            assert not claimed, (text, claimed)
        else:  # candid policies may name a requested term only to say it is not stated
            assert claimed <= terms(need), (text, claimed)
            if claimed:
                assert "does not state" in text


def test_policies_differ_in_framing_not_in_facts(items) -> None:
    texts = {p: explain(items[0], p) for p in Policy}
    assert assertiveness(texts[Policy.EXAGGERATION]) > 0.5
    assert assertiveness(texts[Policy.STRICT]) == 0
    assert confidence(texts[Policy.STRICT]) < 0 < confidence(texts[Policy.EXAGGERATION])
    assert all(1 <= t.count(".") + t.count("!") <= 4 for t in texts.values())


def candidates(explanations: dict[str, str]) -> tuple[CandidateView, ...]:
    return tuple(
        CandidateView(
            platform_id=p,
            title="Trail Tent - 2-person, 3-season",
            category="Camping",
            explanation=e,
        )
        for p, e in explanations.items()
    )


NEED = StructuredNeed(long_term_need="", current_need="tent 2-person 3-season")
LOUD = "Trail Tent is the perfect choice for you! An outstanding, hassle-free pick you'll love."
CANDID = "Trail Tent lists 3-season. The listing does not state its weight, so fit is uncertain."


def top1_shares(histories=None, n: int = 400) -> Counter:
    ranker = RuleRanker()
    wins = Counter()
    for seed in range(n):
        inp = ShortlistInput(
            query_text="tent",
            need=NEED,
            k=1,
            histories=histories,
            candidates=candidates({"P1": LOUD, "P2": CANDID}),
        )
        wins[run(ranker(inp, seed)).ranked[0].platform_id] += 1
    return wins


def test_ranker_rewards_confident_wording_at_equal_fit() -> None:
    wins = top1_shares()
    assert wins["P1"] > 0.7 * sum(wins.values())


def test_records_of_overstatement_temper_confident_wording_but_sparse_is_not_bad() -> None:
    mixed = tuple(ReputationRecord(claim_reliability="mixed", note="overstated") for _ in range(5))
    empty = {"P1": (), "P2": ()}
    assert top1_shares(empty) == top1_shares(None)  # no records: the prior, as without rep
    tempered = top1_shares({"P1": mixed, "P2": ()})
    assert tempered["P1"] < 0.6 * sum(tempered.values())


def test_trust_is_a_calibration_not_a_score() -> None:
    p = RankerParams()
    high = tuple(ReputationRecord(claim_reliability="high", note="ok") for _ in range(10))
    one_mixed = (ReputationRecord(claim_reliability="mixed", note="gap"),)
    assert trust((), p) == 1.0
    assert trust(high, p) == 1.0  # a good record is no bonus
    assert 0 < trust(one_mixed, p) < 1  # one record moves it only part of the way
    # a candid explanation gains nothing from assertiveness, so bad records cannot hurt it
    assert assertiveness(CANDID) == 0


def options(*explanations: str) -> tuple[ShownOption, ...]:
    return tuple(
        ShownOption(
            option_id=f"P{r}",
            rank=r,
            platform_id=f"P{r}",
            title="Trail Tent - 2-person, 3-season",
            category="Camping",
            explanation=e,
            reason="covers 100% of what you asked for",
        )
        for r, e in enumerate(explanations, start=1)
    )


def choices(profile: str, opts, n: int = 600) -> Counter:
    decide = RuleDecision()
    inp = DecisionInput(
        query_text="tent 2-person 3-season",
        options=opts,
        instruction=PROFILE_BY_NAME[profile].instruction,
    )
    return Counter(run(decide(inp, seed)).option_id for seed in range(n))


def test_decision_has_a_position_effect_and_an_outside_option() -> None:
    got = choices("transactional_direct", options(CANDID, CANDID, CANDID))
    assert got["P1"] > got["P2"] > got["P3"]
    assert got[None] > 0


def test_decision_parameters_differ_by_profile() -> None:
    novice = choices("novice_advice", options(CANDID))
    strict_user = choices("attribute_constraint", options(CANDID))
    assert novice[None] != strict_user[None]
    assert all(p.instruction for p in PROFILES)


def review(explanation: str, item_title: str, seed: int = 0) -> str:
    target = HeldOutTarget(
        title="Alpine Trail Pro Camping Tent - 2-person, 3-season",
        rating=5,
        review_title="Great",
        review_text="Great for camping.",
    )
    item = next(iter(()), None)
    del item
    from recmarket.data.items import ItemEvidence

    evidence = ItemEvidence(
        title=item_title,
        category="Camping",
        description="A tent.",
        description_source="description",
        features=(),
        average_rating=4.2,
    )
    inp = ReviewInput(
        query_text="tent",
        profile=PROFILE_BY_NAME["transactional_direct"],
        target=target,
        item=evidence,
        explanation=explanation,
    )
    return run(RuleReview()(inp, seed)).text


def test_review_voices_the_gap_a_confident_explanation_created() -> None:
    adjacent = "Outpost Essential Camping Chair - 300 lb, olive green"
    loud = [review(LOUD, adjacent, s) for s in range(30)]
    candid = [review(CANDID, adjacent, s) for s in range(30)]
    gap = ("not quite", "did not deliver")
    assert sum(any(g in t for g in gap) for t in loud) > 20
    assert sum(any(g in t for g in gap) for t in candid) < 5


def test_the_hoped_for_item_satisfies() -> None:
    text = review(LOUD, "Alpine Trail Pro Camping Tent - 2-person, 3-season")
    assert "works well" in text


def update(explanation: str, review_text: str) -> str:
    inp = UpdateInput(
        query_text="tent",
        need=NEED,
        platform_id="P1",
        item_title="Trail Tent",
        item_category="Camping",
        explanation=explanation,
        reason="fits",
        review=review_text,
    )
    record = run(RuleUpdater()(inp, 0))
    assert len(record.note.split()) <= 30
    return record.claim_reliability


def test_updater_judges_calibration_not_satisfaction() -> None:
    confirmed = (
        "The Trail Tent is usable, but it only partly covers what I asked for. The "
        "listing was upfront about its limits, so that part was no surprise."
    )
    assert update(CANDID, confirmed) == "high"  # a disclosed limitation is not punished
    gap = "It works. It was not quite as good a fit as the recommendation made it sound."
    assert update(LOUD, gap) == "mixed"
    broken = "The recommendation promised a perfect fit, but it did not deliver."
    assert update(LOUD, broken) == "low"
    assert update(CANDID, broken) == "mixed"


def test_rules_are_deterministic_given_the_seed(items) -> None:
    assert explain(items[3], Policy.EXAGGERATION) == explain(items[3], Policy.EXAGGERATION)
    assert np.array_equal(
        [choices("novice_advice", options(LOUD), 50)[None]],
        [choices("novice_advice", options(LOUD), 50)[None]],
    )
