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
from recmarket.agents.llm.prompts import as_json, lines_after, text_of
from recmarket.agents.llm.replies import REASON_WORDS, Reply, bounded
from recmarket.catalogue.mechanisms import mechanism

SPARSE_BELOW = 3.0  # records' worth of evidence under which a profile is called sparse
# Under beta and decay the memory shows every record that counts; the prompt lists the most
# recent of them, and the evidence summary covers them all, so a prompt stays bounded.
LISTED_RECORDS = 10


def evidence(inp: ShortlistInput) -> str:
    """Under the beta and decay mechanisms, each platform's evidence summarised: the
    records' (weighted) count and the posterior share of each label under a uniform
    Dirichlet(1, 1, 1) prior, with its uncertainty; a profile with little evidence is
    called sparse, which is not the same as unfavorable."""
    if inp.mechanism is None:
        return ""
    summary = {}
    for platform, records in (inp.histories or {}).items():
        weight = sum(r.counted for r in records)
        total = 3.0 + weight
        shares = {
            label: (1.0 + sum(r.counted for r in records if r.claim_reliability == label)) / total
            for label in ("high", "mixed", "low")
        }
        high = shares["high"]
        summary[platform] = {
            "records": len(records),
            "evidence": round(weight, 2),
            **{f"posterior_{k}": round(v, 2) for k, v in shares.items()},
            "uncertainty": round((high * (1 - high) / (total + 1)) ** 0.5, 2),
            "sparse": weight < SPARSE_BELOW,
        }
    header = mechanism(inp.mechanism).evidence_header
    return f"reputation_evidence ({header}; sparse means little evidence, not bad):\n" + (
        as_json(summary) + "\n"
    )


def fields(inp: ShortlistInput) -> dict[str, Any]:
    """The shortlist card's placeholders: the request, the candidates and, with reputation,
    each platform's records (as many as the mechanism shows, with their weights)."""
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
    """The shortlist in a reply: exactly K distinct shown candidates with reasons; anything
    else is an ``OutputError``."""
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
    """One ranked candidate in the shortlist card's reply."""

    platform_id: str
    user_agent_reason: str = bounded(REASON_WORDS)


class ShortlistReply(Reply):
    """The shortlist card's reply form."""

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
    """The fake endpoint's shortlist: the first K candidates as shown."""
    k = int(re.search(r"Choose exactly (\d+) of", user).group(1))  # type: ignore[union-attr]
    ids = [c["platform_id"] for c in lines_after(user, "Candidates")]
    return json.dumps(
        {"ranked_items": [{"platform_id": p, "user_agent_reason": f"{p} fits"} for p in ids[:k]]}
    )


CARD = RoleCard("shortlist", fields, read, ShortlistReply, fake, narrow)
