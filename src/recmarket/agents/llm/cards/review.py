"""The review card (Appendix C.6): the user reviews the purchase against the hoped-for
target and the explanation it was sold with."""

from __future__ import annotations

from typing import Any

from recmarket.agents.contracts import Review, ReviewInput
from recmarket.agents.llm.cards.card import RoleCard
from recmarket.agents.llm.parse import sentences_or_text
from recmarket.agents.llm.prompts import item_json
from recmarket.agents.llm.replies import SentencesReply


def fields(inp: ReviewInput) -> dict[str, Any]:
    """The review card's placeholders: the request, the profile, the hoped-for and the
    bought item, the explanation, and the listing where the platform rewrote it."""
    return {
        "query_text": inp.query_text,
        "profile_request": inp.profile.request,
        "profile_evaluation": inp.profile.evaluation,
        "target_title": inp.target.title,
        "target_review": f"{inp.target.review_title}. {inp.target.review_text}",
        "item": item_json(inp.item),
        "explanation": inp.explanation,
        "listing": shown_listing(inp),
    }


def shown_listing(inp: ReviewInput) -> str:
    """The listing the platform rewrote, as the user read it before buying (what, with the
    explanation, they expected), after the explanation; nothing where the platform showed
    the item's own, so those prompts read as they always did."""
    if inp.listing is None:
        return ""
    return (
        "\n\nListing as the platform showed it before purchase (rewritten by the platform; "
        "part of what the user expected):\n"
        f"- title: {inp.listing.title}\n- description: {inp.listing.description}"
    )


def read(reply: str, inp: ReviewInput) -> Review:
    """The review in a reply (an array of sentences or plain text)."""
    return Review(text=sentences_or_text(reply))


def fake(user: str) -> str:
    """The fake endpoint's review: a plain one."""
    return "It works well for what I wanted, as described."


CARD = RoleCard("review", fields, read, SentencesReply, fake)
