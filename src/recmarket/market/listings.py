"""The listings a market shows: the item's own, or the one its seat's copy strategy wrote
(``market.copy``), with the count of the words it added that the item does not support.

The strategy reads the ranker as the market measures it: the judge's noiseless fit of the
need against the visible title and category, what the offline ranker reads through its own
noise and what E-GEO's optimiser queries of its engine.
"""

from __future__ import annotations

from recmarket.agents.contracts import Listing, StructuredNeed
from recmarket.agents.copywriting import rewrite, unsupported_words
from recmarket.agents.judgement import Judge
from recmarket.data.items import ItemEvidence
from recmarket.embedding.similarity import visible_text
from recmarket.market.build import Seat


def seat_listing(
    seat: Seat, need: StructuredNeed, item: ItemEvidence, judge: Judge | None
) -> tuple[Listing | None, int]:
    """The seat's listing of ``item`` for this need (None: the item's own) and the words it
    added that the item's own fields do not support."""
    if seat.copy is None:
        return None, 0
    if judge is None:
        raise ValueError(
            f"market.copy.{seat.platform_id}: a copy strategy reads the ranker through the "
            "judge, and this round has none"
        )

    def read(need_text: str, title: str) -> float:
        return float(judge.fit(need_text, [visible_text(title, item.category)])[0])

    listing = rewrite(seat.copy, need, item, read)
    if listing is None:
        return None, 0
    return listing, unsupported_words(listing, item)
