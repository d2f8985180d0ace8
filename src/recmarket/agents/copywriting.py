"""Copywriting: a seat's listing, rewritten under its copy strategy
(``recmarket.catalogue.listing_copy``). What every backend of the ``copywriter`` role, and
the market that counts a rewrite's words, share.

A copywriter reads what a platform reads, the structured need and the candidate's own
fields, and the strategy chooses the request's words to put at the title's front. The
offline copywriter (``recmarket.agents.rules.copywriter``) puts them there (``Word Word -
the item's title``), lists them in a bullet where the strategy stuffs, and moves the
description's sentences that name them to its front where it foregrounds. A rewrite that
adds no word leaves the listing the item's own, so a strategy at intensity 0 plays exactly
the episodes of ``copy-none``.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from recmarket.agents.contracts import Listing, StructuredNeed
from recmarket.agents.words import content_words, stem, terms, unsupported
from recmarket.catalogue.listing_copy import CopyBrief, CopySetting
from recmarket.data.items import ItemEvidence

SENTENCE = re.compile(r"(?<=[.!?])\s+")
# the ranker's reading of (need, a title as shown) -> level; the judge's noiseless fit
Reader = Callable[[str, str], float]


def own_text(item: ItemEvidence) -> str:
    """Everything the item's own fields say: what supports a word."""
    return " ".join((item.title, item.category, item.description, *item.features))


def unsupported_words(listing: Listing, item: ItemEvidence) -> int:
    """The words a rewritten listing shows that the item's own fields do not support: what
    the market counts of a proposal and what the review holds against the listing."""
    return unsupported(f"{listing.title} {listing.description}", own_text(item))


def titled(words: tuple[str, ...], title: str) -> str:
    """The title with ``words`` at its front."""
    return f"{' '.join(w.capitalize() for w in words)} - {title}" if words else title


def own_listing(item: ItemEvidence) -> Listing:
    """The listing as the item has it: what a copywriter that adds nothing answers."""
    return Listing(title=item.title, description=item.description)


def brief(need: StructuredNeed, item: ItemEvidence, read: Reader | None = None) -> CopyBrief:
    """What the strategy chooses from: the need's words the title lacks, their support in
    the item's own fields, and the reading of the title with some of them in front (none
    without ``read``: what a model's copywriter is told has no reading)."""
    in_title, own = terms(item.title), terms(own_text(item))
    words = tuple(w for w in content_words(need.current_need) if stem(w) not in in_title)

    def reading(front: tuple[str, ...]) -> float:
        if read is None:
            raise ValueError("this brief has no reading of the ranker")
        return read(need.current_need, titled(front, item.title))

    return CopyBrief(words, tuple(stem(w) in own for w in words), reading)


def allowance(setting: CopySetting, need: StructuredNeed, item: ItemEvidence) -> int:
    """The most words the seat's copywriter may add to this listing for this need (0: it is
    not asked, and the listing stays the item's own)."""
    return setting.made.allowance(brief(need, item), setting.built())


def foregrounded(description: str, words: tuple[str, ...]) -> str:
    """The description with its sentences that name any of ``words`` first (each group in
    its own order)."""
    wanted = {stem(w) for w in words}
    sentences = SENTENCE.split(description) if description else []
    naming = [s for s in sentences if terms(s) & wanted]
    return " ".join(naming + [s for s in sentences if s not in naming])


def rewrite(
    setting: CopySetting, need: StructuredNeed, item: ItemEvidence, read: Reader
) -> Listing | None:
    """The seat's listing of ``item`` for this need; None where the strategy adds nothing."""
    strategy = setting.made
    words = strategy.words(brief(need, item, read), setting.built())
    if not words:
        return None
    description = foregrounded(item.description, words) if strategy.foreground else item.description
    if strategy.bullet:
        description = f"{description}\n- {', '.join(words)}".lstrip()
    return Listing(title=titled(words, item.title), description=description)
