"""The platform's offline copywriter: its copy strategy's own mechanism
(``recmarket.catalogue.listing_copy``), reading the ranker as the market measures it.

A strategy that searches (copy-optimised) reads a candidate title the way the judge does,
its noiseless fit of the need against the visible title and category: what the offline
ranker reads through its own noise, and what E-GEO's optimiser queries of its engine. No
draw is made, so a rewrite is the same in every episode that asks for it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from recmarket.agents.contracts import CopyInput, Listing
from recmarket.agents.copywriting import own_listing, rewrite
from recmarket.agents.judgement import Judge
from recmarket.embedding.similarity import visible_text


@dataclass(frozen=True)
class RuleCopywriter:
    """The seat's listing as its strategy writes it; the item's own where it adds nothing."""

    answers_at_once: ClassVar[bool] = True  # no call waits (market/protocol.py)
    judge: Judge

    async def __call__(self, inp: CopyInput, seed: int) -> Listing:
        category = inp.item.category

        def read(need_text: str, title: str) -> float:
            return float(self.judge.fit(need_text, [visible_text(title, category)])[0])

        return rewrite(inp.strategy, inp.need, inp.item, read) or own_listing(inp.item)
