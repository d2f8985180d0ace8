"""The decision card (Appendix C.5): the user buys one shown option or nothing, by the
profile's own instruction."""

from __future__ import annotations

import json
from typing import Any, Literal

from recmarket.agents.contracts import Decision, DecisionInput
from recmarket.agents.llm.cards.card import RoleCard
from recmarket.agents.llm.parse import OutputError, extract_json
from recmarket.agents.llm.prompts import as_json, lines_after, text_of
from recmarket.agents.llm.replies import REASON_WORDS, Reply, bounded


def fields(inp: DecisionInput) -> dict[str, Any]:
    """The decision card's placeholders: the setting (with or without a user agent), the
    user's profile instruction and the shown options."""
    setting = (
        "The user has already entered one uniformly sampled platform: there is no "
        "user agent, no cross-platform shortlist and no historical reputation "
        "signal. The options are that platform's ranked items."
        if inp.platform_centric
        else "The user agent has ranked a cross-platform shortlist for the user."
    )
    options = []
    for o in inp.options:
        option = {
            "rank": o.rank,
            "platform_id": o.option_id,
            "item_title": o.title,
            "item_category": o.category,
            "merchant_pitch": o.explanation,
        }
        if o.reason is not None:
            option["user_agent_reason"] = o.reason
        options.append(as_json(option))
    return {
        "setting": setting,
        "query_text": inp.query_text,
        "instruction": inp.instruction,
        "options": "\n".join(options),
        "rules": text_of(
            "decide_rules_platform_centric" if inp.platform_centric else "decide_rules"
        ).strip(),
    }


def read(reply: str, inp: DecisionInput) -> Decision:
    """The decision in a reply: a purchase of a shown option or none; anything else is an
    ``OutputError``."""
    data = extract_json(reply)
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


class DecisionReply(Reply):
    """The decision card's reply form."""

    decision: Literal["purchase", "no_purchase"]
    selected_platform_id: str | None
    reason: str = bounded(REASON_WORDS)


def narrow(schema: dict[str, Any], inp: DecisionInput) -> None:
    """Only a shown option (or none)."""
    shown: list[Any] = [o.option_id for o in inp.options]
    schema["properties"]["selected_platform_id"] = {"enum": [*shown, None]}


def fake(user: str) -> str:
    """The fake endpoint's decision: buy the first shown option."""
    options = lines_after(user, "Shown options:")
    if not options:
        return json.dumps({"decision": "no_purchase", "reason": "nothing shown"})
    return json.dumps(
        {
            "decision": "purchase",
            "selected_platform_id": options[0]["platform_id"],
            "reason": "best match",
        }
    )


CARD = RoleCard("decide", fields, read, DecisionReply, fake, narrow)
