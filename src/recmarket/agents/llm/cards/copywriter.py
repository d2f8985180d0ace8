"""The copywriter card: a platform rewrites its candidate's listing under its copy strategy
(``recmarket.catalogue.listing_copy``), the field's generative-engine optimisation. Not an
Appendix C card: the paper's platforms never touch the listing.

A constrained strategy (copy-emphasis; copy-optimised, faithful) gets the constrained rules,
which forbid inventing an objective attribute the item's own fields do not state; an
unconstrained one (copy-stuffing) is told to stuff the request's words whether or not the
item has them. Either is told its allowance: the most request words it may add, as the
offline mechanism spends it (``CopyStrategy.allowance``). The market asks only where that
allowance is above 0, so a seat at intensity 0 makes no call.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import Field

from recmarket.agents.contracts import CopyInput, Listing
from recmarket.agents.copywriting import allowance, titled
from recmarket.agents.llm.cards.card import RoleCard
from recmarket.agents.llm.parse import OutputError, extract_json, words
from recmarket.agents.llm.prompts import as_json, item_json, lines_after, text_of
from recmarket.agents.llm.replies import CHARS_PER_WORD, Reply
from recmarket.agents.words import content_words, stem, terms

PLACEHOLDER = re.compile(r"^\s*\[.*\]\s*$")  # the Output line's "[the rewritten title]"
TITLE_WORDS = 60  # Amazon's longest titles run to about 40 words
DESCRIPTION_SLACK = 60  # words a rewrite may add to the item's own description (a bullet)
DESCRIPTION_FLOOR = 200  # words any description may have, however short the item's own


def description_words(inp: CopyInput) -> int:
    """The most words the rewritten description may have: the item's own and some."""
    return max(DESCRIPTION_FLOOR, len(inp.item.description.split()) + DESCRIPTION_SLACK)


def fields(inp: CopyInput) -> dict[str, Any]:
    """The copywriter card's placeholders: its allowance of words, its strategy's rules, the
    need and the listing."""
    constrained = inp.strategy.made.constrained(inp.strategy.built())
    return {
        "allowance": allowance(inp.strategy, inp.need, inp.item),
        "rules": text_of(
            "copywriter_constrained" if constrained else "copywriter_unconstrained"
        ).strip(),
        "need": as_json(inp.need.model_dump()),
        "item": item_json(inp.item),
    }


def read(reply: str, inp: CopyInput) -> Listing:
    """The rewritten listing in a reply, its title and description within their limits."""
    data = extract_json(reply)
    if PLACEHOLDER.match(str(data.get("title", ""))):
        raise OutputError("'title' is the output format's placeholder; write the title itself")
    return Listing(
        title=words(data.get("title"), "title", TITLE_WORDS),
        description=words(data.get("description"), "description", description_words(inp), True),
    )


class ListingReply(Reply):
    """The copywriter card's reply form."""

    title: str = Field(min_length=2, max_length=TITLE_WORDS * CHARS_PER_WORD)
    description: str = Field(max_length=DESCRIPTION_FLOOR * CHARS_PER_WORD)


def narrow(schema: dict[str, Any], inp: CopyInput) -> None:
    """The description's bound, to this item's own description."""
    schema["properties"]["description"]["maxLength"] = description_words(inp) * CHARS_PER_WORD


def fake(user: str) -> str:
    """The fake endpoint's rewrite: the request's first word the title lacks at its front
    (under the constrained rules, the first the item's own fields state), the description
    as it was."""
    need = lines_after(user, "Shopper's request, as the platform received it:")
    item = lines_after(user, "Listing to rewrite:")
    if not need or not item:
        return json.dumps({"title": "A listing", "description": ""})
    own = item[0]
    title, description = str(own.get("title", "")), str(own.get("description", ""))
    stated = terms(
        " ".join((title, str(own.get("category", "")), description, *own.get("features", [])))
    )
    faithful = "Never invent an objective attribute" in user
    added = [
        w
        for w in content_words(str(need[0].get("current_need", "")))
        if stem(w) not in terms(title) and (stem(w) in stated or not faithful)
    ]
    return json.dumps({"title": titled(tuple(added[:1]), title), "description": description})


CARD = RoleCard("copywriter", fields, read, ListingReply, fake, narrow)
