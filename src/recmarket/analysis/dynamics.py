"""Dynamic markets over time: which presentation adaptive platforms choose, and
how much attention a late entrant wins, by block of rounds.

A round is one episode of a domain's schedule (the paper's "rounds": Table 1, Fig. 10). The
schedule is cut into ``BLOCKS`` equal blocks, so a scaled run keeps the same number of
points and an entrant whose round is scaled with the run still enters on a block boundary
(round 200 of 600 at the start of the fifth block of 50). Shares are computed per domain
and then averaged with equal weight per domain, as the paper's Fig. 10 pools domains; each
is one Metric, so the report draws it with its interval from the same definition.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

from recmarket.analysis.bootstrap import Metric, point, ratio
from recmarket.analysis.shares import share_of
from recmarket.catalogue.policies import families
from recmarket.catalogue.strategies import policy_of

BLOCKS = 12


def round_blocks(rounds: int) -> list[tuple[int, int]]:
    """(first, last) rounds of each block, 1-based and inclusive."""
    size = max(1, math.ceil(rounds / BLOCKS))
    return [(lo + 1, min(lo + size, rounds)) for lo in range(0, rounds, size)]


def entrant_top1_share(entrant: str, first: int, last: int) -> Metric:
    """Percent of the Top-1 positions awarded in rounds first..last that ``entrant`` won."""
    return share_of(
        lambda r: first <= r["ord"] + 1 <= last and bool(r.get("top1_platform")),
        lambda r: r["top1_platform"] == entrant,
    )


def proposal_share(family: str, first: int, last: int) -> Metric:
    """Percent of the adaptive platforms' proposals in rounds first..last made under
    ``family`` (each episode row carries every adaptive platform's choice)."""

    def parts(row: Mapping[str, Any]) -> tuple[float, float]:
        if not first <= row["ord"] + 1 <= last:
            return 0.0, 0.0
        chosen = [policy_of(arm) for arm, _ in json.loads(row.get("lessons") or "{}").values()]
        return float(chosen.count(family)), float(len(chosen))

    return Metric(parts, lambda sums: ratio(sums, 100.0))


def _blocked(
    rows: Sequence[Mapping[str, Any]], rounds: int, names: Sequence[str], metric: Any
) -> list[dict[str, Any]]:
    """Per block, each name's share (a fraction) under ``metric(name, first, last)``; None
    for a block no domain's episodes reached."""
    out = []
    for first, last in round_blocks(rounds):
        values = {name: point(rows, metric(name, first, last)) / 100 for name in names}
        reached = not all(math.isnan(v) for v in values.values())
        out.append({"rounds": f"{first}-{last}", "shares": values if reached else None})
    return out


def played(rows: Sequence[Mapping[str, Any]]) -> tuple[str, ...]:
    """The policy families the adaptive platforms played in ``rows`` (the paper's three
    first, then any other by name): an installed policy a run used is counted, whether or
    not it is installed where the rows are read."""
    chosen = (json.loads(r.get("lessons") or "{}").values() for r in rows)
    return families(policy_of(arm) for choices in chosen for arm, _ in choices)


def policy_mix_by_block(rows: Sequence[Mapping[str, Any]], rounds: int) -> list[dict[str, Any]]:
    """Per block, the share of adaptive platforms' proposals made under each policy they
    played."""
    return _blocked(rows, rounds, played(rows), proposal_share)


def entrant_top1_by_block(
    rows: Sequence[Mapping[str, Any]], rounds: int, entrants: Sequence[str]
) -> list[dict[str, Any]]:
    """Per block, each entrant's share of the Top-1 positions awarded (none before it
    could enter, where it is 0 by construction)."""
    return _blocked(rows, rounds, entrants, entrant_top1_share)
