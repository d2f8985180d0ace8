"""The copywriter on real listings: the words it adds, where they go, and the count of
unsupported ones that the review and the measures read."""

import asyncio

import pytest

from recmarket.agents.contracts import HeldOutTarget, ReviewInput, StructuredNeed
from recmarket.agents.copywriting import own_text, rewrite
from recmarket.agents.rules import lexicon
from recmarket.agents.rules.user import RuleReview
from recmarket.agents.rules.user_params import ReviewParams
from recmarket.agents.words import terms, unsupported
from recmarket.catalogue.listing_copy import CopySetting
from recmarket.profiles import PROFILE_BY_NAME


def setting(name: str, intensity: float = 1.0) -> CopySetting:
    return CopySetting.model_validate({"copy": name, "params": {"intensity": intensity}})


def need(text: str) -> StructuredNeed:
    return StructuredNeed(long_term_need="", current_need=text)


def flat(_: str, title: str) -> float:
    return float(len(title))  # a reader that likes any added word


def test_stuffing_adds_words_the_item_lacks_and_emphasis_never_does(domain) -> None:
    stuffed = emphasised = 0
    for item in domain.items[:60]:
        asked = need(f"{item.evidence.category} waterproof titanium ultralight")
        own = own_text(item.evidence)
        stuffing = rewrite(setting("copy-stuffing"), asked, item.evidence, flat)
        assert stuffing is not None  # titanium and friends are never all in a title
        stuffed += unsupported(f"{stuffing.title} {stuffing.description}", own)
        emphasis = rewrite(setting("copy-emphasis"), asked, item.evidence, flat)
        if emphasis is not None:
            assert unsupported(f"{emphasis.title} {emphasis.description}", own) == 0
            assert emphasis.title.endswith(item.evidence.title)
            emphasised += 1
    assert stuffed > 0 and emphasised > 0


def test_stuffing_lists_its_words_in_a_bullet_and_keeps_the_title_behind_them(domain) -> None:
    item = domain.items[0].evidence
    listing = rewrite(setting("copy-stuffing"), need("titanium ultralight"), item, flat)
    assert listing is not None
    assert listing.title == f"Titanium Ultralight - {item.title}"
    assert listing.description.endswith("- titanium, ultralight")


def test_a_rewrite_that_adds_nothing_leaves_the_items_own_listing(domain) -> None:
    item = domain.items[0].evidence
    assert rewrite(setting("copy-stuffing", 0.0), need("titanium"), item, flat) is None
    words_in_title = " ".join(sorted(terms(item.title)))
    assert rewrite(setting("copy-stuffing"), need(words_in_title), item, flat) is None


def test_optimised_raises_the_rankers_reading_or_leaves_the_listing(domain, judge) -> None:
    def read(need_text: str, title: str) -> float:
        return float(judge.fit(need_text, [title])[0])

    for item in domain.items[:20]:
        asked = need(f"{item.evidence.category} lightweight durable outdoor")
        listing = rewrite(setting("copy-optimised"), asked, item.evidence, read)
        if listing is not None:
            own = own_text(item.evidence)
            assert read(asked.current_need, listing.title) > read(
                asked.current_need, item.evidence.title
            )
            assert unsupported(f"{listing.title} {listing.description}", own) == 0


@pytest.mark.parametrize("seed", range(5))
def test_a_listing_that_promised_what_the_item_lacks_widens_the_reviews_gap(
    domain, judge, seed
) -> None:
    item = domain.items[seed].evidence
    listing = rewrite(setting("copy-stuffing"), need("titanium ultralight waterproof"), item, flat)
    base = dict(
        query_text="q",
        profile=PROFILE_BY_NAME["transactional_direct"],
        target=HeldOutTarget(title=item.title, rating=5, review_title="", review_text=""),
        item=item,
        explanation="It is a good fit.",
    )
    reviewer = RuleReview(judge, ReviewParams())
    plain = asyncio.run(reviewer(ReviewInput(**base), seed)).text
    promised = asyncio.run(reviewer(ReviewInput(**base, listing=listing), seed)).text
    assert lexicon.read_gap(promised) > lexicon.read_gap(plain)
