"""The long-term need the user agent reads off a history, and the ranker that reads it: the
rule before issue 51 kept exactly, the rated and recent one as its parameters say, and a
need's template words that never count as fit."""

import asyncio
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from recmarket.agents.contracts import (
    CandidateView,
    NeedInput,
    PastInteraction,
    ShortlistInput,
    StructuredNeed,
)
from recmarket.agents.rules.agent import (
    TEMPLATE_WORDS,
    RuleNeedStructurer,
    RuleRanker,
    need_words,
    returned_kinds,
)
from recmarket.agents.rules.params import NeedParams, RankerParams
from recmarket.agents.rules.text import title_parts

KINDS = ("Guitar Strings", "Drum Sticks", "Piano Bench", "Violin Bow", "Capo")
RECENT = NeedParams(weighting="recent-rated", kinds=2, half_life=2.0)


def past(kind: str, rating: float = 5.0) -> PastInteraction:
    return PastInteraction(title=f"Nickel {kind}", rating=rating, review_title="", review_text="")


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(KINDS), st.integers(1, 5)), max_size=12))
def test_the_count_rule_is_the_rule_before_issue_51(history) -> None:
    """Counter.most_common(2) over the kinds in history order, as the structurer had it."""
    h = tuple(past(k, r) for k, r in history)
    before = [k for k, _ in Counter(title_parts(x.title)[0] for x in h).most_common(2)]
    assert returned_kinds(h, NeedParams()) == before


def test_the_recent_rated_rule_prefers_liked_and_newer_kinds() -> None:
    old_liked = (past("Drum Sticks"), past("Drum Sticks"))
    assert returned_kinds((*old_liked, past("Capo", 1.0)), RECENT) == ["nickel drum sticks"]
    newer = (past("Drum Sticks"), past("Piano Bench"), past("Capo"))
    assert returned_kinds(newer, RECENT) == ["nickel capo", "nickel piano bench"]
    many = (past("Drum Sticks"),) * 3 + (past("Capo"),)
    assert returned_kinds(many, RECENT)[0] == "nickel drum sticks"  # three outweigh one


def test_the_template_never_counts_as_fit() -> None:
    history = (past("Drum Sticks"), past("Capo"))
    need = asyncio.run(RuleNeedStructurer(RECENT)(NeedInput(history=history, query_text=""), 0))
    read = need_words(need.long_term_need)
    assert read.split() == ["nickel", "capo", "nickel", "drum", "sticks"]
    assert not {w.lower() for w in read.split()} & TEMPLATE_WORDS


def candidates() -> tuple[CandidateView, ...]:
    titles = ("Maple Drum Sticks 5A", "Steel Guitar Strings", "Oak Piano Bench", "Cork Yoga Mat")
    return tuple(
        CandidateView(platform_id=f"P{i}", title=t, category="Instruments", explanation="")
        for i, t in enumerate(titles, start=1)
    )


@pytest.mark.parametrize("weight", [0.0, 0.5])
def test_the_ranker_reads_the_long_term_need_at_its_weight(judge, weight: float) -> None:
    """With no request words, a ranker that reads the long-term need puts the kind the
    history returns to first most of the time; one that does not (weight 0) ranks the same
    whatever the history says."""
    ranker = RuleRanker(judge, RankerParams(long_term_weight=weight))

    def firsts(long_term: str) -> Counter:
        need = StructuredNeed(long_term_need=long_term, current_need="")
        inp = ShortlistInput(query_text="", need=need, candidates=candidates(), k=4)
        return Counter(asyncio.run(ranker(inp, s)).ranked[0].platform_id for s in range(200))

    drums, benches = firsts("Returns to drum sticks; "), firsts("Returns to piano bench; ")
    if weight:
        assert drums.most_common(1)[0][0] == "P1" and benches.most_common(1)[0][0] == "P3"
    else:
        assert drums == benches
