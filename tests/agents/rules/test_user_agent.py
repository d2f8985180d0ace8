"""The user agent: semantic fit under noise, claims weighed against evidence, records that
calibrate belief in both directions, one place per product."""

import asyncio
from collections import Counter

import numpy as np
import pytest

from recmarket.agents.contracts import (
    CandidateView,
    ReputationRecord,
    ShortlistInput,
    StructuredNeed,
)
from recmarket.agents.rules import lexicon
from recmarket.agents.rules.agent import RuleRanker, credibility
from recmarket.agents.rules.params import RankerParams

NEED = StructuredNeed(long_term_need="", current_need="yoga mat cork")
GEN = np.random.default_rng(0)


def claim(level: float) -> str:
    return f"This is {lexicon.CLAIM.write(level, GEN)} for your request."


def record(label: str, direction: str) -> ReputationRecord:
    return ReputationRecord(
        claim_reliability=label, note=f"Mat: {lexicon.write_direction(direction, GEN)}."
    )


def top1(ranker, candidates, histories=None, n=300, k=1) -> Counter:
    wins = Counter()
    for seed in range(n):
        inp = ShortlistInput(
            query_text="yoga mat", need=NEED, k=k, histories=histories, candidates=candidates
        )
        wins[asyncio.run(ranker(inp, seed)).ranked[0].platform_id] += 1
    return wins


def view(pid: str, title: str, text: str, category: str = "Yoga") -> CandidateView:
    return CandidateView(platform_id=pid, title=title, category=category, explanation=text)


def test_more_judgement_noise_lowers_the_best_fits_top1(judge) -> None:
    candidates = (
        view("P1", "Cork Yoga Mat - 6 mm, natural", "A yoga mat."),
        view("P2", "Foam Exercise Mat - 10 mm, blue", "An exercise mat."),
        view("P3", "Rubber Floor Mat - garage, black", "A floor mat."),
    )
    calm = top1(RuleRanker(judge, RankerParams(fit_noise=0.05)), candidates)
    noisy = top1(RuleRanker(judge, RankerParams(fit_noise=0.6)), candidates)
    assert calm["P1"] > noisy["P1"] > 0


def test_a_claim_above_the_evidence_wins_at_equal_fit_without_records(judge) -> None:
    same = "Cork Yoga Mat - 6 mm, natural"
    candidates = (view("P1", same, claim(0.95)), view("P2", same + " ", claim(0.3)))
    wins = top1(RuleRanker(judge, RankerParams()), candidates)
    assert wins["P1"] > 0.6 * sum(wins.values())


def test_no_records_give_the_prior_in_both_directions() -> None:
    p = RankerParams()
    assert credibility((), True, p) == pytest.approx(p.credence)
    assert credibility((), False, p) == pytest.approx(p.credence)


def test_records_calibrate_belief_in_both_directions() -> None:
    p = RankerParams()
    overstated = tuple(record("low", "over") for _ in range(6))
    held_up = tuple(record("high", "fair") for _ in range(6))
    undersold = tuple(record("high", "under") for _ in range(6))
    # an overstated claim is discounted after overstatement; claims that held up keep the
    # prior (High is no ranking bonus, Appendix C.4), unless a counterfactual makes it one
    assert credibility(overstated, True, p) < p.credence
    assert credibility(held_up, True, p) == pytest.approx(p.credence)
    bonus = RankerParams(label_credibility={"high": 1.0, "mixed": 0.25, "low": 0.0})
    assert credibility(held_up, True, bonus) > bonus.credence
    # a hedge is relieved after the platform's items kept beating its claims
    assert credibility(undersold, False, p) < p.credence
    assert credibility(held_up, False, p) == pytest.approx(p.credence)


def test_a_record_is_never_a_score_by_itself(judge) -> None:
    """A calibrated claim (no distance from the evidence) ranks the same whatever the
    record says."""
    ranker = RuleRanker(judge, RankerParams())
    candidates = (
        view("P1", "Cork Yoga Mat - 6 mm, natural", "A cork yoga mat."),
        view("P2", "Cork Yoga Mat - 4 mm, black", "A cork yoga mat."),
    )
    bad = {"P1": tuple(record("low", "over") for _ in range(8)), "P2": ()}
    assert top1(ranker, candidates, bad) == top1(ranker, candidates, {"P1": (), "P2": ()})


def test_records_of_overstatement_take_away_a_loud_claims_edge(judge) -> None:
    # a middling fit (about 0.5), claimed excellent by P1 and fair by P2
    same = "Foam Exercise Mat - 10 mm, blue"
    candidates = (
        view("P1", same, claim(0.95), "Fitness"),
        view("P2", same + " ", claim(0.5), "Fitness"),
    )
    ranker = RuleRanker(judge, RankerParams())
    before = top1(ranker, candidates, {"P1": (), "P2": ()})
    after = top1(
        ranker, candidates, {"P1": tuple(record("low", "over") for _ in range(8)), "P2": ()}
    )
    assert after["P1"] < before["P1"]


def test_a_product_offered_twice_takes_one_place(judge) -> None:
    ranker = RuleRanker(judge, RankerParams(fit_noise=0.0))
    best = "Cork Yoga Mat - 6 mm, natural"
    candidates = (
        view("P1", best, claim(0.9)),
        view("P2", best, claim(0.9)),
        view("P3", "Foam Exercise Mat - 10 mm, blue", claim(0.5)),
    )
    inp = ShortlistInput(query_text="yoga mat", need=NEED, k=2, candidates=candidates)
    ranked = asyncio.run(ranker(inp, 0)).ranked
    assert {r.platform_id for r in ranked} & {"P1", "P2"} and "P3" in {
        r.platform_id for r in ranked
    }
    inp3 = ShortlistInput(query_text="yoga mat", need=NEED, k=3, candidates=candidates)
    assert len(asyncio.run(ranker(inp3, 0)).ranked) == 3  # copies fill K when products run out


def test_the_reason_carries_the_belief_the_decision_reads(judge) -> None:
    ranker = RuleRanker(judge, RankerParams())
    # an item that fits the need poorly, claimed to be excellent: a claim above the evidence
    candidates = (view("P1", "Steel Kettlebell - 25 lb", claim(0.95), "Weights"),)
    overstated = {"P1": tuple(record("low", "over") for _ in range(8))}
    inp = ShortlistInput(
        query_text="yoga mat", need=NEED, k=1, candidates=candidates, histories=overstated
    )
    reason = asyncio.run(ranker(inp, 0)).ranked[0].reason
    believed = lexicon.CREDIBILITY.read(reason)
    assert believed is not None and believed < RankerParams().credence
    plain = ShortlistInput(query_text="yoga mat", need=NEED, k=1, candidates=candidates)
    assert lexicon.CREDIBILITY.read(asyncio.run(ranker(plain, 0)).ranked[0].reason) is None
