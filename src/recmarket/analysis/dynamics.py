"""Dynamic markets over time (issue 12): which presentation adaptive platforms choose, and
how much attention a late entrant wins, by block of rounds.

A round is one episode of a domain's schedule (the paper's "rounds": Table 1, Fig. 10). The
schedule is cut into ``BLOCKS`` equal blocks, so a scaled run keeps the same number of
points and an entrant whose round is scaled with the run still enters on a block boundary
(round 200 of 600 at the start of the fifth block of 50). Shares are computed per domain
and then averaged with equal weight per domain, as the paper's Fig. 10 pools domains.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from recmarket.market.behaviour.strategies import policy_of
from recmarket.policies import families

BLOCKS = 12


def round_blocks(rounds: int) -> list[tuple[int, int]]:
    """(first, last) rounds of each block, 1-based and inclusive."""
    size = max(1, math.ceil(rounds / BLOCKS))
    return [(lo + 1, min(lo + size, rounds)) for lo in range(0, rounds, size)]


def _by_domain(rows: Sequence[Mapping[str, Any]]) -> dict[str, list[Mapping[str, Any]]]:
    grouped: dict[str, list[Mapping[str, Any]]] = {}
    for row in rows:
        grouped.setdefault(row["domain"], []).append(row)
    return grouped


def _pooled(per_domain: list[dict[str, float] | None]) -> dict[str, float] | None:
    """The equal-weight mean over the domains that have the block."""
    present = [d for d in per_domain if d is not None]
    if not present:
        return None
    keys = sorted({k for d in present for k in d})
    return {k: sum(d.get(k, 0.0) for d in present) / len(present) for k in keys}


def _blocked(rows: Sequence[Mapping[str, Any]], rounds: int, share: Any) -> list[dict[str, Any]]:
    out = []
    domains = _by_domain(rows)
    for first, last in round_blocks(rounds):
        per_domain = [
            share([r for r in kept if first <= r["ord"] + 1 <= last]) for kept in domains.values()
        ]
        out.append({"rounds": f"{first}-{last}", "shares": _pooled(per_domain)})
    return out


def policy_mix_by_block(rows: Sequence[Mapping[str, Any]], rounds: int) -> list[dict[str, Any]]:
    """Per block, the share of adaptive platforms' proposals made under each policy."""

    def share(block: list[Mapping[str, Any]]) -> dict[str, float] | None:
        counts: Counter[str] = Counter()
        for row in block:
            for arm, _ in json.loads(row.get("strategy") or "{}").values():
                counts[policy_of(arm)] += 1
        total = sum(counts.values())
        return {p: counts[p] / total for p in families(counts)} if total else None

    return _blocked(rows, rounds, share)


def entrant_top1_by_block(
    rows: Sequence[Mapping[str, Any]], rounds: int, entrants: Sequence[str]
) -> list[dict[str, Any]]:
    """Per block, each entrant's share of the Top-1 positions awarded (none before it
    could enter, where it is 0 by construction)."""

    def share(block: list[Mapping[str, Any]]) -> dict[str, float] | None:
        awarded = [r["top1_platform"] for r in block if r.get("top1_platform")]
        return {e: awarded.count(e) / len(awarded) for e in entrants} if awarded else None

    return _blocked(rows, rounds, share)
