"""Rendering each role's typed input into the Appendix C prompt card for that role.

One template file per role under ``prompts/``: the system line, ``=== user ===``, then the
user message with ``$placeholders``. Placeholders are filled only from the role's typed
input, so the information boundaries of the contracts hold for LLMs too. A NoRep shortlist
omits the history block and the Rep-only addition entirely.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from string import Template
from typing import Any

from recmarket.agents.contracts import (
    Contract,
    DecisionInput,
    ExplanationInput,
    NeedInput,
    PastInteraction,
    QueryInput,
    ReviewInput,
    ShortlistInput,
    UpdateInput,
)
from recmarket.data.items import ItemEvidence
from recmarket.mechanisms import mechanism
from recmarket.policies import policy

Message = dict[str, str]
REVIEW_CHARS = 400
SEPARATOR = "=== user ==="


@cache
def _text(name: str) -> str:
    return resources.files("recmarket.agents.llm").joinpath(f"prompts/{name}.txt").read_text()


@cache
def _template(name: str) -> tuple[str, Template]:
    system, user = _text(name).split(SEPARATOR, 1)
    return system.strip(), Template(user.strip("\n"))


SPARSE_BELOW = 3.0  # records' worth of evidence under which a profile is called sparse
# Under beta and decay the memory shows every record that counts; the prompt lists the most
# recent of them, and the evidence summary covers them all, so a prompt stays bounded.
LISTED_RECORDS = 10


def _evidence(inp: ShortlistInput) -> str:
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
        _json(summary) + "\n"
    )


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _history(history: tuple[PastInteraction, ...]) -> str:
    if not history:
        return "(no earlier interactions)"
    return "\n".join(
        f"- {h.title} (rated {h.rating:g}/5): {h.review_title}. {h.review_text[:REVIEW_CHARS]}"
        for h in history
    )


def _item(item: ItemEvidence) -> str:
    return _json(item.model_dump(exclude={"description_source"}))


def _fields(inp: Contract) -> dict[str, Any]:
    if isinstance(inp, QueryInput):
        return {
            "domain": inp.domain.replace("_", " "),
            "profile_request": inp.profile.request,
            "history": _history(inp.history),
            "target_title": inp.target.title,
            "target_rating": f"{inp.target.rating:g}",
            "target_review": f"{inp.target.review_title}. {inp.target.review_text}",
        }
    if isinstance(inp, NeedInput):
        return {"history": _history(inp.history), "query_text": inp.query_text}
    if isinstance(inp, ExplanationInput):
        return {
            "platform_id": inp.platform_id,
            "policy_id": policy(inp.policy).implementation_id,
            "policy_guidance": policy(inp.policy).guidance,
            "need": _json(inp.need.model_dump()),
            "item": _item(inp.item),
        }
    if isinstance(inp, ShortlistInput):
        rep = inp.histories is not None
        histories = ""
        if rep:
            shown = LISTED_RECORDS if inp.mechanism is not None else None
            profiles = {
                p: [r.model_dump() for r in records[-shown if shown else 0 :]]
                for p, records in (inp.histories or {}).items()
            }
            listed = (
                "oldest first" if shown is None else f"at most the {shown} latest, oldest first"
            )
            histories = (
                f"\nhistory_reputation_profile (per platform, {listed}):\n"
                + _json(profiles)
                + "\n"
                + _evidence(inp)
            )
        return {
            "k": inp.k,
            "n": len(inp.candidates),
            "query_text": inp.query_text,
            "need": _json(inp.need.model_dump()),
            "candidates": "\n".join(
                _json(
                    {
                        "platform_id": c.platform_id,
                        "candidate_item": {"title": c.title, "category": c.category},
                        "bidding_pitch": c.explanation,
                    }
                )
                for c in inp.candidates
            ),
            "histories": histories,
            "rep_addition": _text("shortlist_rep").strip() if rep else "",
        }
    if isinstance(inp, DecisionInput):
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
            options.append(_json(option))
        return {
            "setting": setting,
            "query_text": inp.query_text,
            "instruction": inp.instruction,
            "options": "\n".join(options),
            "rules": _text(
                "decide_rules_platform_centric" if inp.platform_centric else "decide_rules"
            ).strip(),
        }
    if isinstance(inp, ReviewInput):
        return {
            "query_text": inp.query_text,
            "profile_request": inp.profile.request,
            "profile_evaluation": inp.profile.evaluation,
            "target_title": inp.target.title,
            "target_review": f"{inp.target.review_title}. {inp.target.review_text}",
            "item": _item(inp.item),
            "explanation": inp.explanation,
        }
    if isinstance(inp, UpdateInput):
        return {
            "query_text": inp.query_text,
            "need": _json(inp.need.model_dump()),
            "platform_id": inp.platform_id,
            "item_title": inp.item_title,
            "item_category": inp.item_category,
            "explanation": inp.explanation,
            "reason": inp.reason,
            "review": inp.review,
        }
    raise TypeError(f"no prompt for {type(inp).__name__}")


def render(role: str, inp: Contract) -> list[Message]:
    """The chat messages for one role call."""
    system, user = _template(role)
    return [
        {"role": "system", "content": system},
        {"role": "user", "content": user.substitute(_fields(inp))},
    ]
