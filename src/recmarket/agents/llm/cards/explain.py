"""The explanation card (Appendix C.3): a platform explains its candidate under its policy
(the policy's id and guidance come from ``recmarket.catalogue.policies``)."""

from __future__ import annotations

from typing import Any

from recmarket.agents.contracts import Explanation, ExplanationInput
from recmarket.agents.llm.cards.card import RoleCard
from recmarket.agents.llm.parse import sentences_or_text
from recmarket.agents.llm.prompts import as_json, item_json
from recmarket.agents.llm.replies import SentencesReply
from recmarket.catalogue.policies import policy


def fields(inp: ExplanationInput) -> dict[str, Any]:
    """The explanation card's placeholders: the platform, its policy's id and guidance, the
    need and the item."""
    return {
        "platform_id": inp.platform_id,
        "policy_id": policy(inp.policy).implementation_id,
        "policy_guidance": policy(inp.policy).guidance,
        "need": as_json(inp.need.model_dump()),
        "item": item_json(inp.item),
    }


def read(reply: str, inp: ExplanationInput) -> Explanation:
    """The explanation in a reply (an array of sentences or plain text)."""
    return Explanation(text=sentences_or_text(reply))


def fake(user: str) -> str:
    """The fake endpoint's explanation, worded after the policy the prompt names."""
    if "promotional_exaggeration" in user:
        return "This is the perfect choice for you! Everyone loves it."
    if "strict_transparent" in user:
        return "The listing matches part of the request; some details are not stated."
    return "A practical option for this need. One trade-off: details are limited."


CARD = RoleCard("explain", fields, read, SentencesReply, fake)
