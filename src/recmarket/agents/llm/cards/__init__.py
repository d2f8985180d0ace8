"""The eight LLM role cards, and what the LLM backend does with them: render a call's
messages, read a reply into the role's output, constrain a reply by schema. One card per
role (``card.RoleCard``); nothing here branches on a role's name beyond finding its card.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import ValidationError

from recmarket.agents.contracts import Contract
from recmarket.agents.llm.cards import (
    copywriter,
    decide,
    explain,
    need,
    query,
    review,
    shortlist,
    update,
)
from recmarket.agents.llm.cards.card import RoleCard
from recmarket.agents.llm.parse import OutputError
from recmarket.agents.llm.prompts import Message, template
from recmarket.agents.llm.replies import SentencesReply, inline
from recmarket.vocabulary import RoleName

_SENTENCE = re.compile(r"(?<=[.!?])\s+")

CARDS: dict[str, RoleCard[Any, Any]] = {
    c.role: c
    for c in (
        query.CARD,
        need.CARD,
        explain.CARD,
        copywriter.CARD,
        shortlist.CARD,
        decide.CARD,
        review.CARD,
        update.CARD,
    )
}


def card(role: RoleName) -> RoleCard[Any, Any]:
    """The prompt card of ``role``; an unknown role fails with the known ones."""
    try:
        return CARDS[role]
    except KeyError:
        raise ValueError(f"unknown role {role!r}; the roles are {', '.join(CARDS)}") from None


def render(role: RoleName, inp: Contract) -> list[Message]:
    """The chat messages for one role call: the card's template, filled only from the
    role's typed input (so the contracts' information boundaries hold for LLMs too)."""
    system, user = template(role)
    return [
        {"role": "system", "content": system},
        {"role": "user", "content": user.substitute(card(role).fields(inp))},
    ]


def parse(role: RoleName, text: str, inp: Contract) -> Contract:
    """The typed output of ``role`` for this reply, or OutputError."""
    try:
        return card(role).read(text, inp)
    except ValidationError as exc:
        raise OutputError("; ".join(e["msg"] for e in exc.errors())) from None


def reply_schema(role: RoleName, inp: Contract, text: bool = True) -> dict[str, Any] | None:
    """The JSON schema of ``role``'s reply to ``inp``; for a plain-text role, its array of
    sentences, or None without ``text``."""
    chosen = card(role)
    if chosen.reply is None or (chosen.reply is SentencesReply and not text):
        return None
    schema = inline(chosen.reply.model_json_schema())
    if chosen.narrow is not None:
        chosen.narrow(schema, inp)
    return schema


def fake_answer(role: RoleName, user: str, structured: bool = False) -> str:
    """The loopback fake server's valid answer for the role, read off the prompt; with
    ``structured`` (the request carried a schema), a plain-text role's sentences as the
    array its schema asks for."""
    chosen = card(role)
    text = chosen.fake(user)
    if structured and chosen.reply is SentencesReply:
        return json.dumps({"sentences": _SENTENCE.split(text.strip())})
    return text
