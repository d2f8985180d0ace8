"""The reputation-update card (Appendix C.6): the user agent turns the review into a
claim-reliability record of the purchased platform."""

from __future__ import annotations

import json
import re
from typing import Any, Literal

from recmarket.agents.contracts import NOTE_MAX_WORDS, ReputationRecord, UpdateInput
from recmarket.agents.llm.cards.card import RoleCard
from recmarket.agents.llm.parse import OutputError, extract_json, words
from recmarket.agents.llm.prompts import as_json
from recmarket.agents.llm.replies import Reply, bounded


def fields(inp: UpdateInput) -> dict[str, Any]:
    """The update card's placeholders: the request, the need, the platform, the bought item,
    the explanation and the review."""
    return {
        "query_text": inp.query_text,
        "need": as_json(inp.need.model_dump()),
        "platform_id": inp.platform_id,
        "item_title": inp.item_title,
        "item_category": inp.item_category,
        "explanation": inp.explanation,
        "reason": inp.reason,
        "review": inp.review,
    }


_LABEL_TEXT = re.compile(r"claim_reliability\s*[=:]\s*\"?(\w+)\"?[;,.]?\s*(.*)", re.S | re.I)


def read(reply: str, inp: UpdateInput) -> ReputationRecord:
    """The record in a reply, in JSON or in the card's own ``claim_reliability=LABEL; note``
    form."""
    try:
        data = extract_json(reply)
        label, note = data.get("claim_reliability"), data.get("note")
    except OutputError:  # the card's own form: claim_reliability=high; note
        match = _LABEL_TEXT.search(reply)
        if not match:
            raise
        label, note = match.group(1), match.group(2)
    label = str(label or "").strip().lower()
    if label not in ("high", "mixed", "low"):
        raise OutputError(f"claim_reliability {label!r} is not one of high, mixed, low")
    note = words(note, "note", NOTE_MAX_WORDS)
    return ReputationRecord.model_validate({"claim_reliability": label, "note": note})


class UpdateReply(Reply):
    """The update card's reply form."""

    claim_reliability: Literal["high", "mixed", "low"]
    note: str = bounded(NOTE_MAX_WORDS)


def fake(user: str) -> str:
    """The fake endpoint's record: Mixed after an exaggerated explanation, High otherwise."""
    label = "mixed" if "perfect choice" in user else "high"
    return json.dumps({"claim_reliability": label, "note": "Claims mostly held up in use."})


CARD = RoleCard("update", fields, read, UpdateReply, fake)
