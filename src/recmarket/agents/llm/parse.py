"""Reading a model's reply: what every card's ``read`` uses to turn a reply into the role's
typed output, or a specific complaint.

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

MAX_SENTENCES = 3
MAX_TEXT_WORDS = 120
_FENCE = re.compile(r"```(?:json|JSON|text)?\s*(.*?)```", re.S)
_SENTENCE_END = re.compile(r"[.!?]+(?:\s|$)")
# What starts an array item as a list marker rather than as its sentence ("1. ", "2) ",
# "Sentence 1: ", "- "): small models number the items of an array of sentences, and each
# "1." would count as a sentence of its own.
_LIST_MARKER = re.compile(
    r"^\s*(?:(?:sentence|item)\s*\d+\s*[:.)-]\s*|\d+\s*[.):-]\s+|[-*•]\s+)+", re.I
)


class OutputError(ValueError):
    """The reply does not satisfy the role's contract; the message says exactly why."""


# Control characters (a raw line break) inside strings are read: grammar-constrained decoders
# let them through (llama.cpp's string rule excludes only quotes and backslashes), and the
# reply is otherwise what was asked for.
_DECODER = json.JSONDecoder(strict=False)


def extract_json(text: str) -> dict[str, Any]:
    """The first JSON object in a reply, inside or outside code fences."""
    candidates = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    for chunk in candidates:
        start = chunk.find("{")
        while start != -1:
            try:
                value, _ = _DECODER.raw_decode(chunk[start:])
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


def sentences_or_text(text: str) -> str:
    """A plain-text role's answer: a structured reply's sentences (``{"sentences": [...]}``)
    joined, each ending as a sentence ends, or else the reply as plain text; either way held
    to the 1-3 sentence contract of ``plain_text``. A plain-text reply is read as before, so
    with structured outputs off nothing changes."""
    reply = text.strip()
    data = None
    if reply.startswith("{"):
        try:
            data = _DECODER.decode(reply)
        except ValueError:
            data = None
    if not (isinstance(data, dict) and set(data) == {"sentences"}):
        return plain_text(text)
    items = data["sentences"]
    if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
        raise OutputError("'sentences' must be a list of one to three strings")
    said = [_LIST_MARKER.sub("", i).strip() for i in items]
    joined = " ".join(s if s[-1] in ".!?" else f"{s}." for s in said if s)
    return plain_text(joined)


def words(value: Any, field: str, limit: int, empty: bool = False) -> str:
    """A reply field as a string of at most ``limit`` words, non-empty unless ``empty``."""
    if not isinstance(value, str) or not (empty or value.strip()):
        raise OutputError(f"'{field}' must be a non-empty string")
    if len(value.split()) > limit:
        raise OutputError(f"'{field}' has {len(value.split())} words; at most {limit} allowed")
    return value.strip()
