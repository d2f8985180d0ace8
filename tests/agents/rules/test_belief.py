"""The accountability path's belief: one prior for the user agent and the user, a posterior
that is monotone in the labels, and configurations that would break either refused."""

import asyncio
import itertools

import numpy as np
import pytest
from pydantic import ValidationError

from recmarket.agents.contracts import (
    CandidateView,
    ReputationRecord,
    ShortlistInput,
    ShownOption,
    StructuredNeed,
)
from recmarket.agents.rules import lexicon, offline_agents
from recmarket.agents.rules.agent import RuleRanker, credibility
from recmarket.agents.rules.params import OfflineParams, RankerParams
from recmarket.agents.rules.user import stated_belief

NEED = StructuredNeed(long_term_need="", current_need="yoga mat cork")
GEN = np.random.default_rng(0)
LOUD = CandidateView(
    platform_id="P1",
    title="Steel Kettlebell - 25 lb",
    category="Weights",
    explanation=f"This is {lexicon.CLAIM.write(0.95, GEN)} for your request.",
)


def records(label: str, n: int = 1) -> tuple[ReputationRecord, ...]:
    note = f"Mat: {lexicon.write_direction('fair', GEN)}."
    return tuple(ReputationRecord(claim_reliability=label, note=note) for _ in range(n))


def shown(reason: str) -> ShownOption:
    return ShownOption(
        option_id="P1",
        rank=1,
        platform_id="P1",
        title=LOUD.title,
        category=LOUD.category,
        explanation=LOUD.explanation,
        reason=reason,
    )


def reason_for(judge, params: RankerParams, history: tuple[ReputationRecord, ...] | None) -> str:
    """The ranker's user-visible reason for the loud candidate, with that history (None:
    no reputation at all, as under NoRep)."""
    inp = ShortlistInput(
        query_text="yoga mat",
        need=NEED,
        k=1,
        candidates=(LOUD,),
        histories=None if history is None else {"P1": history},
    )
    return asyncio.run(RuleRanker(judge, params)(inp, 0)).ranked[0].reason


@pytest.mark.parametrize("credence", [0.2, 0.5, 0.8])
def test_without_records_agent_and_user_hold_the_same_prior(embedder, judge, credence) -> None:
    params = OfflineParams(ranker=RankerParams(credence=credence))
    assert offline_agents(embedder, params).decide.prior_belief == credence
    assert credibility((), True, params.ranker) == credence
    for history in (None, ()):  # NoRep, and LocalRep before the first record
        reason = reason_for(judge, params.ranker, history)
        assert lexicon.CREDIBILITY.read(reason) is None  # the reason says nothing of a record
        assert stated_belief(shown(reason), credence) == credence


VALID = [
    RankerParams(credence=c, prior_records=n, label_credibility={"high": h, "mixed": m, "low": lo})
    for c, n, (h, m, lo) in itertools.product(
        (0.0, 0.3, 0.5, 0.9),
        (0.5, 2.0, 10.0),
        ((1.0, 0.5, 0.0), (0.9, 0.6, 0.2), (0.95, 0.1, 0.0)),
    )
    if lo <= c <= h
]


@pytest.mark.parametrize("p", VALID, ids=lambda p: f"{p.credence}-{p.prior_records}")
@pytest.mark.parametrize("n", [1, 3, 12])
def test_belief_is_monotone_in_the_labels(p: RankerParams, n: int) -> None:
    high, mixed, low = (credibility(records(x, n), True, p) for x in ("high", "mixed", "low"))
    tiny = 1e-12  # rounding of the pseudo-count mean when a label equals the prior
    assert high >= p.credence - tiny and low <= p.credence + tiny
    assert low < mixed < high


def test_the_belief_the_user_reads_is_monotone_in_the_labels(judge) -> None:
    p = RankerParams()
    read = {
        label: lexicon.CREDIBILITY.read(reason_for(judge, p, records(label)))
        for label in ("high", "mixed", "low")
    }
    prior = stated_belief(shown(reason_for(judge, p, ())), p.credence)
    assert read["high"] >= prior >= read["low"]
    assert read["low"] < read["mixed"] < read["high"]


def test_the_posterior_is_the_documented_pseudo_count_mean() -> None:
    p = RankerParams(credence=0.4, prior_records=3.0)
    history = records("high", 2) + records("low")
    expected = (3.0 * 0.4 + 2 * 1.0 + 0.0) / (3.0 + 3)
    assert credibility(history, True, p) == pytest.approx(expected)


@pytest.mark.parametrize(
    "settings, named",
    [
        ({"label_credibility": {"high": 1.0, "mixed": 0.0, "low": 0.0}}, "low < mixed < high"),
        ({"label_credibility": {"high": 0.4, "mixed": 0.5, "low": 0.0}}, "low < mixed < high"),
        (
            {"credence": 0.5, "label_credibility": {"high": 0.4, "mixed": 0.2, "low": 0.0}},
            "credence",
        ),
        (
            {"credence": 0.1, "label_credibility": {"high": 1.0, "mixed": 0.5, "low": 0.2}},
            "credence",
        ),
        ({"label_credibility": {"high": 1.0, "low": 0.0}}, "exactly the labels"),
    ],
)
def test_a_belief_that_labels_would_move_the_wrong_way_is_refused(settings, named) -> None:
    with pytest.raises(ValidationError, match=named):
        RankerParams(**settings)
