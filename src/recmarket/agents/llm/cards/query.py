"""The query card (Appendix C.1): the user writes a request from the held-out target."""

from __future__ import annotations

import json
import re
from typing import Any

from recmarket.agents.contracts import Query, QueryInput
from recmarket.agents.llm.cards.card import RoleCard
from recmarket.agents.llm.parse import extract_json, words
from recmarket.agents.llm.prompts import history
from recmarket.agents.llm.replies import QUERY_WORDS, Reply, bounded


def fields(inp: QueryInput) -> dict[str, Any]:
    """The query card's placeholders: the domain, the profile, the history and the held-out
    target."""
    return {
        "domain": inp.domain.replace("_", " "),
        "profile_request": inp.profile.request,
        "history": history(inp.history),
        "target_title": inp.target.title,
        "target_rating": f"{inp.target.rating:g}",
        "target_review": f"{inp.target.review_title}. {inp.target.review_text}",
    }


def read(reply: str, inp: QueryInput) -> Query:
    """The query in a reply, within its word limit."""
    data = extract_json(reply)
    return Query(query_text=words(data.get("query_text"), "query_text", QUERY_WORDS))


class QueryReply(Reply):
    """The query card's reply form."""

    query_text: str = bounded(QUERY_WORDS)


def fake(user: str) -> str:
    """The fake endpoint's query: the last words of the target's title."""
    title = re.search(r"- title: (.+)", user)
    said = (title.group(1) if title else "something useful").split(" - ")[0].split()
    return json.dumps({"query_text": "Looking for " + " ".join(said[-3:]).lower()})


CARD = RoleCard("query", fields, read, QueryReply, fake)
