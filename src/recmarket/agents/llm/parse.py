"""Turning a model's reply into the role's typed output, or a specific complaint.

JSON is found robustly (code fences, prose around the object); then the reply is checked
against the role's contract and the call's own input: a shortlist must rank exactly K
unique ids among the candidates, a decision must pick a shown option or no purchase, an
update must use a known label and a short note. The complaint is what the model is told
when it is asked again.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import ValidationError

from recmarket.agents.contracts import (
    NOTE_MAX_WORDS,
    Contract,
    Decision,
    DecisionInput,
    Explanation,
    Query,
    RankedItem,
    ReputationRecord,
    Review,
    Shortlist,
    ShortlistInput,
    StructuredNeed,
)
from recmarket.agents.llm.replies import CURRENT_WORDS, LONG_TERM_WORDS, QUERY_WORDS, REASON_WORDS

MAX_SENTENCES = 3
MAX_TEXT_WORDS = 120
_FENCE = re.compile(r"```(?:json|JSON|text)?\s*(.*?)```", re.S)
_SENTENCE_END = re.compile(r"[.!?]+(?:\s|$)")


class OutputError(ValueError):
    """The reply does not satisfy the role's contract; the message says exactly why."""


def extract_json(text: str) -> dict[str, Any]:
    """The first JSON object in a reply, inside or outside code fences."""
    candidates = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    for chunk in candidates:
        start = chunk.find("{")
        while start != -1:
            try:
                value, _ = json.JSONDecoder().raw_decode(chunk[start:])
            except json.JSONDecodeError:
                start = chunk.find("{", start + 1)
                continue
            if isinstance(value, dict):
                return value
            start = chunk.find("{", start + 1)
    raise OutputError("the reply contains no valid JSON object; return exactly one JSON object")


def plain_text(text: str) -> str:
    """A 1-3 sentence plain-text answer, with fences and wrapping quotes removed."""
    fenced = _FENCE.search(text)
    body = (fenced.group(1) if fenced else text).strip().strip('"').strip()
    if not body:
        raise OutputError("the reply is empty; write one to three plain-text sentences")
    sentences = len(_SENTENCE_END.findall(body + " "))
    if sentences > MAX_SENTENCES or len(body.split()) > MAX_TEXT_WORDS:
        raise OutputError(
            f"the reply has {sentences} sentences and {len(body.split())} words; "
            f"write at most {MAX_SENTENCES} sentences"
        )
    return body


def _words(value: Any, field: str, limit: int) -> str:
    if not isinstance(value, str) or not value.strip():
        raise OutputError(f"'{field}' must be a non-empty string")
    if len(value.split()) > limit:
        raise OutputError(f"'{field}' has {len(value.split())} words; at most {limit} allowed")
    return value.strip()


def _shortlist(data: dict[str, Any], inp: ShortlistInput) -> Shortlist:
    items = data.get("ranked_items")
    if not isinstance(items, list):
        raise OutputError("'ranked_items' must be a list of {platform_id, user_agent_reason}")
    known = {c.platform_id for c in inp.candidates}
    ids = [i.get("platform_id") if isinstance(i, dict) else None for i in items]
    unknown = [i for i in ids if i not in known]
    if unknown:
        raise OutputError(f"unknown platform ids {unknown}; choose among {sorted(known)}")
    if len(set(ids)) != len(ids):
        raise OutputError(f"duplicate platform ids in {ids}; each may appear once")
    if len(ids) != inp.k:
        raise OutputError(f"ranked {len(ids)} platforms; rank exactly {inp.k}")
    return Shortlist(
        ranked=tuple(
            RankedItem(
                platform_id=i["platform_id"],
                reason=_words(i.get("user_agent_reason"), "user_agent_reason", REASON_WORDS),
            )
            for i in items
        )
    )


def _decision(data: dict[str, Any], inp: DecisionInput) -> Decision:
    verdict = str(data.get("decision", "")).strip().lower().replace(" ", "_")
    reason = str(data.get("reason") or "").strip() or "(no reason given)"
    if verdict == "no_purchase":
        return Decision(option_id=None, reason=reason)
    if verdict != "purchase":
        raise OutputError('\'decision\' must be "purchase" or "no_purchase"')
    chosen = data.get("selected_platform_id", data.get("selected_option_id"))
    shown = [o.option_id for o in inp.options]
    if chosen not in shown:
        raise OutputError(
            f"selected_platform_id {chosen!r} was not shown; choose one of {shown} "
            "or decide no_purchase"
        )
    return Decision(option_id=chosen, reason=reason)


_LABEL_TEXT = re.compile(r"claim_reliability\s*[=:]\s*\"?(\w+)\"?[;,.]?\s*(.*)", re.S | re.I)


def _record(text: str) -> ReputationRecord:
    try:
        data = extract_json(text)
        label, note = data.get("claim_reliability"), data.get("note")
    except OutputError:  # the card's own form: claim_reliability=high; note
        match = _LABEL_TEXT.search(text)
        if not match:
            raise
        label, note = match.group(1), match.group(2)
    label = str(label or "").strip().lower()
    if label not in ("high", "mixed", "low"):
        raise OutputError(f"claim_reliability {label!r} is not one of high, mixed, low")
    note = _words(note, "note", NOTE_MAX_WORDS)
    return ReputationRecord.model_validate({"claim_reliability": label, "note": note})


def parse(role: str, text: str, inp: Contract) -> Contract:
    """The typed output of ``role`` for this reply, or OutputError."""
    try:
        if role == "explain":
            return Explanation(text=plain_text(text))
        if role == "review":
            return Review(text=plain_text(text))
        if role == "update":
            return _record(text)
        data = extract_json(text)
        if role == "query":
            return Query(query_text=_words(data.get("query_text"), "query_text", QUERY_WORDS))
        if role == "need":
            return StructuredNeed(
                long_term_need=_words(
                    data.get("long_term_need"), "long_term_need", LONG_TERM_WORDS
                ),
                current_need=_words(data.get("current_need"), "current_need", CURRENT_WORDS),
            )
        if role == "shortlist":
            assert isinstance(inp, ShortlistInput)
            return _shortlist(data, inp)
        if role == "decide":
            assert isinstance(inp, DecisionInput)
            return _decision(data, inp)
    except ValidationError as exc:
        raise OutputError("; ".join(e["msg"] for e in exc.errors())) from None
    raise ValueError(f"unknown role {role!r}")
