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
RECENT = NeedParams(weighting="recent-rated", kinds=2, half_life=2.0, recent_liked=0)


def past(kind: str, rating: float = 5.0) -> PastInteraction:
    return PastInteraction(title=f"Nickel {kind}", rating=rating, review_title="", review_text="")


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(KINDS), st.integers(1, 5)), max_size=12))
def test_the_count_rule_is_the_rule_before_issue_51(history) -> None:
    """Counter.most_common(2) over the kinds in history order, as the structurer had it."""
    h = tuple(past(k, r) for k, r in history)
    before = [k for k, _ in Counter(title_parts(x.title)[0] for x in h).most_common(2)]
    assert returned_kinds(h, NeedParams(weighting="count", kinds=2)) == before


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


def bought(kind: str, store: str | None, price: float | None, rating: float = 5.0):
    return PastInteraction(
        title=f"Nickel {kind}",
        rating=rating,
        review_title="",
        review_text="",
        store=store,
        price=price,
    )


def test_the_need_names_a_store_returned_to_and_the_price_paid_where_asked() -> None:
    """A store named once is no habit; two purchases make one (the newer first among equals,
    a 1-star purchase weighing nothing); the price is the weighted median, and neither the
    price nor the template is read as fit. By default both are said (fitted to real people:
    issue 66's fit, with the newest liked purchase named, chose the store)."""
    history = (
        bought("Capo", "Acme", 8.0),
        bought("Drum Sticks", "Vic Firth", 12.0),
        bought("Capo", "Acme", 9.5),
        bought("Piano Bench", "Vic Firth", 120.0, rating=1.0),
        bought("Violin Bow", "Solo", 30.0),
    )
    asked = NeedParams(
        weighting="recent-rated", kinds=3, half_life=2.0, store=True, price=True, recent_liked=0
    )
    inp = NeedInput(history=history, query_text="")
    said = asyncio.run(RuleNeedStructurer(asked)(inp, 0)).long_term_need
    assert "often from Acme;" in said  # Vic Firth's second purchase was rated 1 star
    assert "usually pays about $12;" in said  # weights 0.5, 0.71, 0.59, 1 from $8 up
    assert "$" not in need_words(said) and "Acme" in need_words(said).split()
    bare_params = NeedParams(price=False, store=False)
    plain = asyncio.run(RuleNeedStructurer(bare_params)(inp, 0)).long_term_need
    assert "often from" not in plain and "pays" not in plain
    default = asyncio.run(RuleNeedStructurer(NeedParams())(inp, 0)).long_term_need
    assert "often from Acme;" in default and "usually pays about $" in default
    unpriced = tuple(bought(k, None, None) for k in ("Capo", "Capo"))
    bare = asyncio.run(RuleNeedStructurer(asked)(NeedInput(history=unpriced, query_text=""), 0))
    assert "often from" not in bare.long_term_need and "pays" not in bare.long_term_need


def test_the_need_names_the_newest_liked_purchases_last_and_the_cap_trims_them() -> None:
    """Liked purchases (rated 4 or more) by their short titles, newest first, after every
    structured part, so the 30-word cap trims them and never the kinds, price or disposition."""
    history = (
        bought("Capo Deluxe Edition Extra Long Title Words Here", "Acme", 8.0),
        bought("Drum Sticks", "Vic Firth", 12.0),
        bought("Piano Bench", "Vic Firth", 120.0, rating=1.0),
        bought("Violin Bow", "Solo", 30.0),
    )
    inp = NeedInput(history=history, query_text="")

    def need(liked: int) -> str:
        params = NeedParams(recent_liked=liked, store=False)
        return asyncio.run(RuleNeedStructurer(params)(inp, 0)).long_term_need

    one = need(1)
    assert one.endswith("Lately liked Nickel Violin Bow.")
    assert "rates most purchases highly. Lately" in one
    three = need(3)
    # the third (the capo's six words) passes the cap: trimmed, the structured parts kept
    assert "highly. Lately liked Nickel Violin Bow and Nickel Drum Sticks" in three
    assert len(three.split()) == 30 and "usually pays about $" in three
    assert "Piano" not in three.split("Lately")[1]  # rated 1 star: not liked
    assert "lately" not in need_words(three).lower().split()  # the template is no fit
    assert "Lately" not in need(0)


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
