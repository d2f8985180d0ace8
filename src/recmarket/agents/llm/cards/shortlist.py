"""The shortlist card (Appendix C.4): the user agent ranks K of the shuffled candidates;
under reputation the card adds each platform's records (and, under the beta and decay
mechanisms, a summary of their evidence)."""

from __future__ import annotations

import json
import re
from typing import Any

from recmarket.agents.contracts import RankedItem, Shortlist, ShortlistInput
from recmarket.agents.llm.cards.card import RoleCard
from recmarket.agents.llm.parse import OutputError, extract_json, words
from recmarket.agents.llm.prompts import LISTED_RECORDS, as_json, evidence, lines_after, text_of
from recmarket.agents.llm.replies import REASON_WORDS, Reply, bounded


def fields(inp: ShortlistInput) -> dict[str, Any]:
    rep = inp.histories is not None
    histories = ""
    if rep:
        shown = LISTED_RECORDS if inp.mechanism is not None else None
        profiles = {
            p: [r.model_dump() for r in records[-shown if shown else 0 :]]
            for p, records in (inp.histories or {}).items()
        }
        listed = "oldest first" if shown is None else f"at most the {shown} latest, oldest first"
        histories = (
            f"\nhistory_reputation_profile (per platform, {listed}):\n"
            + as_json(profiles)
            + "\n"
            + evidence(inp)
        )
    return {
        "k": inp.k,
        "n": len(inp.candidates),
        "query_text": inp.query_text,
        "need": as_json(inp.need.model_dump()),
        "candidates": "\n".join(
            as_json(
                {
                    "platform_id": c.platform_id,
                    "candidate_item": {"title": c.title, "category": c.category},
                    "bidding_pitch": c.explanation,
                }
            )
            for c in inp.candidates
        ),
        "histories": histories,
        "rep_addition": text_of("shortlist_rep").strip() if rep else "",
    }


def read(reply: str, inp: ShortlistInput) -> Shortlist:
    data = extract_json(reply)
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
                reason=words(i.get("user_agent_reason"), "user_agent_reason", REASON_WORDS),
            )
            for i in items
        )
    )


class RankedReply(Reply):
    platform_id: str
    user_agent_reason: str = bounded(REASON_WORDS)


class ShortlistReply(Reply):
    ranked_items: list[RankedReply]


def narrow(schema: dict[str, Any], inp: ShortlistInput) -> None:
    """Only the candidates shown, exactly K of them."""
    ranked = schema["properties"]["ranked_items"]
    ranked["items"]["properties"]["platform_id"] = {
        "type": "string",
        "enum": [c.platform_id for c in inp.candidates],
    }
    ranked["minItems"] = ranked["maxItems"] = inp.k


def fake(user: str) -> str:
    k = int(re.search(r"Choose exactly (\d+) of", user).group(1))  # type: ignore[union-attr]
    ids = [c["platform_id"] for c in lines_after(user, "Candidates")]
    return json.dumps(
        {"ranked_items": [{"platform_id": p, "user_agent_reason": f"{p} fits"} for p in ids[:k]]}
    )


CARD = RoleCard("shortlist", fields, read, ShortlistReply, fake, narrow)
