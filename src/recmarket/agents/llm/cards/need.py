"""The need card (Appendix C.2): the user agent structures the request."""

from __future__ import annotations

import json
import re
from typing import Any

from recmarket.agents.contracts import NeedInput, StructuredNeed
from recmarket.agents.llm.cards.card import RoleCard
from recmarket.agents.llm.parse import extract_json, words
from recmarket.agents.llm.prompts import history
from recmarket.agents.llm.replies import CURRENT_WORDS, LONG_TERM_WORDS, Reply, bounded


def fields(inp: NeedInput) -> dict[str, Any]:
    """The need card's placeholders: the user's history and the current query."""
    return {"history": history(inp.history), "query_text": inp.query_text}


def read(reply: str, inp: NeedInput) -> StructuredNeed:
    """The structured need in a reply, each part within its word limit."""
    data = extract_json(reply)
    return StructuredNeed(
        long_term_need=words(data.get("long_term_need"), "long_term_need", LONG_TERM_WORDS),
        current_need=words(data.get("current_need"), "current_need", CURRENT_WORDS),
    )


class NeedReply(Reply):
    """The need card's reply form."""

    long_term_need: str = bounded(LONG_TERM_WORDS)
    current_need: str = bounded(CURRENT_WORDS)


def fake(user: str) -> str:
    """The fake endpoint's need, read off the query in the prompt."""
    query = re.search(r"Current query: (.+)", user)
    said = query.group(1) if query else "an item"
    return json.dumps(
        {
            "long_term_need": "Prefers well reviewed practical gear.",
            "current_need": " ".join(said.split()[:25]),
        }
    )


CARD = RoleCard("need", fields, read, NeedReply, fake)
