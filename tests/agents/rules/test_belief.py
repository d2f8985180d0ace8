"""The accountability path's belief: one prior for the user agent and the user, a posterior
that is monotone in the labels, and configurations that would break either refused."""

import asyncio

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
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


@pytest.mark.parametrize("credence", [0.3, 0.5, 0.8])
def test_without_records_agent_and_user_hold_the_same_prior(embedder, judge, credence) -> None:
    params = OfflineParams(ranker=RankerParams(credence=credence))
    assert offline_agents(embedder, params).decide.prior_belief == credence
    assert credibility((), True, params.ranker) == credence
    for history in (None, ()):  # NoRep, and LocalRep before the first record
        reason = reason_for(judge, params.ranker, history)
        assert lexicon.CREDIBILITY.read(reason) is None  # the reason says nothing of a record
        assert stated_belief(shown(reason), credence) == credence


@st.composite
def valid_ranker_params(draw: st.DrawFn) -> RankerParams:
    """Any ranker the settings accept: 0 <= low < mixed < high <= 1, credence between mixed
    and high, any positive prior weight."""
    unit = st.floats(0.0, 1.0, allow_nan=False)
    low, mixed, high = sorted(draw(st.lists(unit, min_size=3, max_size=3, unique=True)))
    assume(low < mixed < high)
    return RankerParams(
        credence=draw(st.floats(mixed, high)),
        prior_records=draw(st.floats(1e-3, 1e3)),
        label_credibility={"high": high, "mixed": mixed, "low": low},
    )


def user_belief(p: RankerParams, history: tuple[ReputationRecord, ...]) -> float:
    """The belief the user takes from the agent's word on a history (written as the ranker
    writes it, read as the user reads it); with no history, the prior."""
    if not history:
        return stated_belief(shown("My reading: fine."), p.credence)
    said = lexicon.CREDIBILITY.write(credibility(history, True, p), GEN)
    return stated_belief(shown(f"From its record, {said}."), p.credence)


@settings(max_examples=400, deadline=None)
@given(valid_ranker_params(), st.integers(1, 20))
def test_belief_is_monotone_in_the_labels_over_every_valid_ranker(p: RankerParams, n) -> None:
    """On both sides: the agent's posterior, and the belief the user takes from its word,
    never move against a label, from the prior or between labels, for any valid
    parameters and any number of records."""
    tiny = 1e-9  # rounding of the pseudo-count mean when a label equals the prior
    high, mixed, low = (credibility(records(x, n), True, p) for x in ("high", "mixed", "low"))
    assert high >= p.credence - tiny and mixed <= p.credence + tiny and low <= p.credence + tiny
    assert low <= mixed <= high and low < high
    prior = user_belief(p, ())
    read = {x: user_belief(p, records(x, n)) for x in ("high", "mixed", "low")}
    assert read["high"] >= prior - tiny and read["mixed"] <= prior + tiny
    assert read["low"] <= read["mixed"] <= read["high"]
    mixed_first = records("mixed") + records("low", n)
    assert user_belief(p, records("high") + records("low", n)) >= user_belief(p, mixed_first)


@settings(max_examples=200, deadline=None)
@given(valid_ranker_params(), st.integers(1, 20), st.sampled_from(["over", "fair", "under"]))
def test_no_record_but_a_high_one_raises_belief_in_a_hedge(p: RankerParams, n, way) -> None:
    """A claim below the evidence is believed as far as the records' labels say the
    platform's claims hold up (Appendix C.4), and not at all on a record that says the item
    turned out better: a Low or Mixed record, whatever its note, never raises belief in a
    hedge (the oracle's Low records once did, from 0.5 to 0.8)."""
    note = f"Mat: {lexicon.write_direction(way, GEN)}."
    for label in ("mixed", "low"):
        history = tuple(ReputationRecord(claim_reliability=label, note=note) for _ in range(n))
        assert credibility(history, False, p) <= p.credence + 1e-9
    high = tuple(ReputationRecord(claim_reliability="high", note=note) for _ in range(n))
    if way == "under":
        assert credibility(high, False, p) <= p.credence + 1e-9
    else:
        assert credibility(high, False, p) >= p.credence - 1e-9


def test_a_mixed_record_lowers_belief_by_default() -> None:
    """Appendix C.4's Mixed, "a relevant limitation or uncertainty was omitted or
    understated", is a fault: at the defaults it lowers belief below the prior, less than a
    Low record does."""
    p = RankerParams()
    prior, mixed, low = p.credence, *(credibility(records(x, 3), True, p) for x in ("mixed", "low"))
    assert low < mixed < prior


def test_a_word_that_keeps_the_agent_in_the_priors_band_leaves_the_user_at_the_prior() -> None:
    """The case the band midpoints got wrong: a credence of 0.25 lies in the band read as
    0.3; a Low record (belief 0.21, the same band) must not raise the user's belief."""
    credibilities = {"high": 1.0, "mixed": 0.1, "low": 0.0}  # High a bonus, as before issue 63
    p = RankerParams(credence=0.25, prior_records=5.0, label_credibility=credibilities)
    assert user_belief(p, records("low")) == 0.25
    assert user_belief(p, records("low", 12)) < 0.25 < user_belief(p, records("high", 12))


def test_the_belief_the_user_reads_is_monotone_in_the_labels(judge) -> None:
    p = RankerParams()
    read = {
        label: lexicon.CREDIBILITY.read(reason_for(judge, p, records(label)))
        for label in ("high", "mixed", "low")
    }
    prior = stated_belief(shown(reason_for(judge, p, ())), p.credence)
    assert read["high"] >= prior >= read["low"]
    assert read["low"] < read["high"] and read["low"] <= read["mixed"] <= read["high"]


def test_the_posterior_is_the_documented_pseudo_count_mean() -> None:
    credibilities = {"high": 1.0, "mixed": 0.25, "low": 0.0}
    p = RankerParams(credence=0.4, prior_records=3.0, label_credibility=credibilities)
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
        ({"label_credibility": {"high": 1.0, "low": 0.0}}, "needs the labels mixed and low"),
    ],
)
def test_a_belief_that_labels_would_move_the_wrong_way_is_refused(settings, named) -> None:
    with pytest.raises(ValidationError, match=named):
        RankerParams(**settings)


def test_without_labels_on_hedges_a_low_record_raised_belief_in_a_hedge() -> None:
    """The rule before issue 45, kept as a counterfactual setting: a hedge believed fully
    unless a note said the item was undersold, so even a Low record raised belief in it."""
    p = RankerParams(hedges_by_label=False)
    low = records("low", 4)
    assert credibility(low, False, p) > p.credence > credibility(low, False, RankerParams())
    assert credibility(low, True, p) == credibility(low, True, RankerParams())  # excesses alike


@pytest.mark.parametrize("claim", ["overclaim", "hedge"])
def test_high_records_are_no_bonus_and_mixed_and_low_lower_belief(claim) -> None:
    """Appendix C.4's Rep-only addition: High reliability is not a ranking bonus. At the
    defaults no number of High records moves belief off the prior; Mixed and Low lower it,
    Low further; and with credence moved, High follows the prior."""
    from recmarket import api

    prior = api.belief([], claim=claim)
    assert prior == RankerParams().credence
    assert all(api.belief(["high"] * n, claim=claim) == pytest.approx(prior) for n in range(11))
    assert api.belief(["mixed"] * 10, claim=claim) < prior
    assert api.belief(["low"] * 10, claim=claim) < api.belief(["mixed"] * 10, claim=claim)
    moved = RankerParams(credence=0.8)
    assert api.belief(["high"] * 5, claim=claim, settings=moved) == pytest.approx(0.8)
    # an explicit High above the prior is still a counterfactual the settings accept
    bonus = RankerParams(label_credibility={"high": 1.0, "mixed": 0.25, "low": 0.0})
    assert api.belief(["high"] * 5, claim=claim, settings=bonus) > prior


def test_belief_names_an_unknown_label_or_claim() -> None:
    from recmarket import api

    with pytest.raises(ValueError, match=r"unknown record label.*'great'.*high, mixed, low"):
        api.belief(["high", "great"])
    with pytest.raises(ValueError, match=r"unknown claim 'boast'; known: overclaim, hedge"):
        api.belief([], claim="boast")


def test_the_rep_instruction_counts_less_of_an_asserted_claim(judge) -> None:
    """Under the Rep instruction (histories given, even empty) the ranker counts the
    rep_instruction share of a claim's believed distance: an overclaiming candidate's value
    falls by that share, a claimless one's does not move."""
    claim = lexicon.CLAIM.phrases[-1][0]
    views = (
        CandidateView(
            platform_id="P1",
            title="Kitchen sponge",
            category="Cleaning",
            explanation=f"This is {claim} for you.",
        ),
        CandidateView(
            platform_id="P2",
            title="Steel guitar strings set",
            category="Strings",
            explanation="A set of strings.",
        ),
    )
    inp = ShortlistInput(
        query_text="guitar strings",
        need=StructuredNeed(long_term_need="", current_need="guitar strings"),
        candidates=views,
        k=2,
    )
    p = RankerParams(fit_noise=0.0)
    ranker = RuleRanker(judge, p)
    gen = np.random.default_rng(0)
    plain = {j.candidate.platform_id: j.value for j in ranker.judged(inp, gen)}
    told = inp.model_copy(update={"histories": {"P1": (), "P2": ()}})
    instructed = {j.candidate.platform_id: j.value for j in ranker.judged(told, gen)}
    assert instructed["P2"] == pytest.approx(plain["P2"])  # no claim, nothing set apart
    assert instructed["P1"] < plain["P1"]
    never = RuleRanker(judge, p.model_copy(update={"rep_instruction": 1.0}))
    assert {j.candidate.platform_id: j.value for j in never.judged(told, gen)}["P1"] == (
        pytest.approx(plain["P1"])
    )
