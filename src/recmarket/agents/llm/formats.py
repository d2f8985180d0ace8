"""Structured outputs: how a role's reply schema is sent, and finding out what an endpoint
honours.

``json_schema`` is the OpenAI form (``{"type": "json_schema", "json_schema": {...}}``),
which OpenAI, vLLM, Ollama and llama.cpp's own server constrain decoding with;
``json_object`` is JSON mode with the schema beside it (``{"type": "json_object",
"schema": ...}``), the form of llama-cpp-python's server and Anyscale-style endpoints;
``off`` sends no format and leaves the reply to the prompt card. ``auto`` asks the endpoint
once per run with a tiny call whose prompt asks for no JSON at all: a format counts as
honoured only when the reply is nevertheless a JSON object that keeps the probe's schema,
so an endpoint that accepts the field and ignores it falls through to the next form.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Literal

Structured = Literal["auto", "json_schema", "json_object", "off"]
TextReplies = Literal["sentences", "text"]  # the plain-text roles under a schema, or without

SCHEMA_NAME = "reply"
Format = Callable[[dict[str, Any]], dict[str, Any] | None]

FORMATS: dict[str, Format] = {
    "json_schema": lambda schema: {
        "type": "json_schema",
        "json_schema": {"name": SCHEMA_NAME, "schema": schema, "strict": True},
    },
    "json_object": lambda schema: {"type": "json_object", "schema": schema},
    "off": lambda schema: None,
}
AUTO_ORDER = ("json_schema", "json_object")  # then off

# The probe uses every schema keyword the role schemas use (enum with null, string length,
# array length), so an endpoint that rejects one of them is found before the run.
PROBE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "answer": {"type": "string", "enum": ["yes"]},
        "note": {"type": "string", "minLength": 2, "maxLength": 40},
        "items": {
            "type": "array",
            "items": {"type": "string", "enum": ["a"]},
            "minItems": 1,
            "maxItems": 1,
        },
        "pick": {"enum": ["a", None]},
    },
    "required": ["answer", "note", "items", "pick"],
    "additionalProperties": False,
}
PROBE_MESSAGES = (
    {"role": "system", "content": "recmarket structured-output check."},
    {"role": "user", "content": "Reply with OK."},
)
PROBE_TOKENS = 64


def honoured(text: str) -> bool:
    """Whether a probe reply keeps PROBE_SCHEMA: the proof that decoding was constrained
    (the prompt asked for plain OK)."""
    try:
        data = json.loads(text)
    except ValueError:
        return False
    return (
        isinstance(data, dict)
        and set(data) == {"answer", "note", "items", "pick"}
        and data["answer"] == "yes"
        and isinstance(data["note"], str)
        and 2 <= len(data["note"]) <= 40
        and data["items"] == ["a"]
        and data["pick"] in ("a", None)
    )
