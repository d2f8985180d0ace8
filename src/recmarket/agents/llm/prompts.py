"""The Appendix C prompt cards' text, and the pieces the role cards render inputs with.

One template file per role under ``prompts/``: the system line, ``=== user ===``, then the
user message with ``$placeholders``, which each role's card (``agents/llm/cards``) fills
only from the role's typed input, so the information boundaries of the contracts hold for
LLMs too. A NoRep shortlist omits the history block and the Rep-only addition entirely.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from string import Template
from typing import Any

from recmarket.agents.contracts import PastInteraction
from recmarket.data.items import ItemEvidence

Message = dict[str, str]
REVIEW_CHARS = 400
SEPARATOR = "=== user ==="


@cache
def text_of(name: str) -> str:
    """A prompt file's text (``prompts/<name>.txt``)."""
    return resources.files("recmarket.agents.llm").joinpath(f"prompts/{name}.txt").read_text()


@cache
def template(name: str) -> tuple[str, Template]:
    """A card's system message and its user message template."""
    system, user = text_of(name).split(SEPARATOR, 1)
    return system.strip(), Template(user.strip("\n"))


def as_json(value: Any) -> str:
    """``value`` as JSON, non-ASCII kept as written."""
    return json.dumps(value, ensure_ascii=False)


def history(past: tuple[PastInteraction, ...]) -> str:
    """The user's past interactions as the prompt lists them, each review cut to its first
    characters."""
    if not past:
        return "(no earlier interactions)"
    return "\n".join(
        f"- {h.title} (rated {h.rating:g}/5): {h.review_title}. {h.review_text[:REVIEW_CHARS]}"
        for h in past
    )


def item_json(item: ItemEvidence) -> str:
    """An item's evidence as JSON, without where its description came from."""
    return as_json(item.model_dump(exclude={"description_source"}))


def lines_after(text: str, header: str) -> list[dict[str, Any]]:
    """The JSON lines a rendered prompt lists under ``header`` (candidates, options): how
    the fake server reads a prompt back."""
    block = text.split(header, 1)[1] if header in text else ""
    out = []
    for line in block.splitlines():
        line = line.strip()
        if line.startswith("{"):
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:
                continue
        elif out and not line:
            break
    return out
