"""What the fake endpoint says: which role a request plays (read off its prompt card's
system line), a valid answer for it, the same answer spoilt by a content fault, and the
OpenAI-style bodies it is sent in (a completion, an error). The server that sends them and
decides which request gets which fault is ``recmarket.testing.fake_llm``; the scripted
provider (``fake_provider``) answers with them too.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from recmarket.agents.llm.cards import fake_answer
from recmarket.vocabulary import is_role

ROLE_BY_SYSTEM = {
    "You generate realistic e-commerce": "query",
    "You are a strict JSON generator": "need",
    "You write product recommendation explanations": "explain",
    "You write product listings": "copywriter",
    "You are a strict ranking judge": "shortlist",
    "You simulate final user purchase decisions": "decide",
    "You simulate realistic post-purchase user reviews": "review",
    "You create concise platform reputation memories": "update",
}
CONTENT_FAULTS = (
    "fenced",
    "prose",
    "invalid_json",
    "unknown_id",
    "duplicate_id",
    "too_few",
    "bad_label",
)


Response = tuple[int, dict[str, str], dict[str, Any]]  # status, headers, JSON body


def server_error() -> Response:
    """A 500 with an OpenAI-style error body."""
    return 500, {}, {"error": {"message": "internal error", "type": "server"}}


def echoed(payload: dict[str, Any], sent: str) -> dict[str, Any]:
    """``payload`` with the Authorization header it answers appended to its message."""
    if "error" in payload:
        error = payload["error"]
        return {**payload, "error": {**error, "message": f"{error['message']} ({sent})"}}
    if "choices" in payload:
        choice = payload["choices"][0]
        message = {**choice["message"], "content": f"{choice['message']['content']} {sent}"}
        return {**payload, "choices": [{**choice, "message": message}, *payload["choices"][1:]]}
    return payload


def completion(body: dict[str, Any], text: str, prompt_tokens: int) -> dict[str, Any]:
    """A chat completion as OpenAI-compatible servers send it."""
    digest = hashlib.sha256(json.dumps(body["messages"]).encode()).hexdigest()
    return {
        "id": f"fake-{digest[:12]}",
        "object": "chat.completion",
        "created": 0,
        "model": body.get("model", "fake"),
        "choices": [
            {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": len(text) // 4,
            "total_tokens": prompt_tokens + len(text) // 4,
        },
    }


def role_of(messages: list[dict[str, str]]) -> str:
    """Which role's prompt card the messages open with ("unknown" for anything else)."""
    system = messages[0]["content"] if messages else ""
    return next((r for prefix, r in ROLE_BY_SYSTEM.items() if system.startswith(prefix)), "unknown")


def answer(role: str, user: str, structured: bool = False) -> str:
    """A valid answer for the role, read off the prompt (each role's card says how), in the
    reply schema's shape where the request carried one; a message of no known card (a
    client's own test call) gets the update card's JSON."""
    return fake_answer(role if is_role(role) else "update", user, structured)


def corrupt(role: str, kind: str, text: str) -> str:
    """``text`` spoilt by a content fault of ``kind``."""
    if kind == "fenced":
        return f"```json\n{text}\n```"
    if kind == "prose":
        return f"Sure! Here is my answer:\n{text}\nLet me know if you need more."
    if kind == "invalid_json" and text.startswith("{"):
        return text[:-1] + ",,}"
    data = json.loads(text) if text.startswith("{") else None
    if role == "shortlist" and data is not None and data["ranked_items"]:
        items = data["ranked_items"]
        if kind == "unknown_id":
            items[0]["platform_id"] = "P999"
        elif kind == "duplicate_id" and len(items) > 1:
            items[1]["platform_id"] = items[0]["platform_id"]
        elif kind == "too_few":
            data["ranked_items"] = items[:-1]
        return json.dumps(data)
    if role == "update" and kind == "bad_label" and data is not None:
        data["claim_reliability"] = "excellent"
        return json.dumps(data)
    return text
