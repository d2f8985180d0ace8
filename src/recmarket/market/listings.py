"""The listings a market shows: the item's own, or the one its seat's copywriter wrote under
the seat's copy strategy (``market.copy``), with the count of the words it added that the
item does not support.

The copywriter is a role (``copywriter``: the offline strategy's mechanism, or a model told
the strategy's constraint), asked only where the seat's strategy may add a word to this
listing for this need: a seat without a strategy, or at intensity 0, plays the episodes of
``copy-none`` and makes no call.
"""

from __future__ import annotations

from collections.abc import Sequence

from recmarket.agents.contracts import CopyInput, Listing, StructuredNeed
from recmarket.agents.copywriting import allowance, own_listing, unsupported_words
from recmarket.data.items import Item, ItemEvidence
from recmarket.market.asker import RoleAsker
from recmarket.market.build import Seat
from recmarket.market.outcome import Proposal
from recmarket.streams import Stream


async def seat_listing(
    ask: RoleAsker, seat: Seat, need: StructuredNeed, item: ItemEvidence, unit: int
) -> tuple[Listing | None, int]:
    """The seat's listing of ``item`` for this need (None: the item's own) and the words it
    added that the item's own fields do not support."""
    if seat.copy is None or allowance(seat.copy, need, item) == 0:
        return None, 0
    asked = CopyInput(strategy=seat.copy, need=need, item=item)
    listing: Listing = await ask("copywriter", asked, Stream.COPY, unit)
    if listing == own_listing(item):
        return None, 0
    return listing, unsupported_words(listing, item)


def visible(p: Proposal, items: Sequence[Item]) -> dict[str, str]:
    """The fields of a proposal that the user agent and the user see: its listing's title
    (as its seat rewrote it, where it did), the category and the explanation."""
    evidence = items[p.item_index].evidence
    return {
        "title": p.listing.title if p.listing else evidence.title,
        "category": evidence.category,
        "explanation": p.explanation,
    }
