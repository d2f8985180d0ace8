"""Rates of one cell and contrasts between two cells that share requests, each with the
bootstrap design its condition calls for (Appendix A.3): under reputation, episodes of one
simulated user are not independent, so users are resampled; otherwise requests are."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from typing import Any

import numpy as np

from recmarket.analysis.bootstrap import DRAWS, Interval, cluster_user, paired_request

Row = dict[str, Any]


def _episode(row: Row) -> tuple[Any, str, int]:
    """An episode's key across cells: its replicate (the seed, in pooled cells), domain and
    place in the schedule."""
    return row.get("replicate"), row["domain"], row["ord"]


def _aligned(rows_a: list[Row], rows_b: list[Row]) -> list[tuple[Row, Row]]:
    by_key = {_episode(r): r for r in rows_b}
    pairs = []
    for a in rows_a:
        b = by_key.get(_episode(a))
        if b is None or b["episode_id"] != a["episode_id"]:
            raise ValueError(
                "the two cells do not share requests (different seeds, domains or "
                f"request counts): no match for {a['domain']}:{a['ord']}"
            )
        pairs.append((a, b))
    if len(pairs) != len(rows_b):
        raise ValueError("the two cells have different numbers of episodes")
    return pairs


def contrast(
    rows_a: list[Row],
    rows_b: list[Row],
    value: Callable[[Row], float],
    *,
    draws: int = DRAWS,
    seed: int = 0,
) -> Interval:
    """Arm B minus arm A of ``value`` per episode, macro over domains, with a 95% interval:
    cluster-user when either arm used reputation, paired-request otherwise."""
    pairs = _aligned(rows_a, rows_b)
    stateful = bool(pairs) and "local-rep" in (pairs[0][0]["condition"], pairs[0][1]["condition"])
    values = [(a, value(b) - value(a)) for a, b in pairs]
    return _interval(values, stateful, draws, seed)


def rate(
    rows: list[Row], value: Callable[[Row], float], *, draws: int = DRAWS, seed: int = 0
) -> Interval:
    """One cell's macro rate of ``value`` with a 95% interval."""
    stateful = bool(rows) and rows[0]["condition"] == "local-rep"
    return _interval([(r, value(r)) for r in rows], stateful, draws, seed)


def _interval(values: list[tuple[Row, float]], stateful: bool, draws: int, seed: int) -> Interval:
    """Macro mean of per-episode values (keyed by their episode's row), cluster-user when
    ``stateful``, paired-request otherwise."""
    if not stateful:
        by_domain: dict[str, list[float]] = defaultdict(list)
        for row, v in values:
            by_domain[row["domain"]].append(v)
        return paired_request(
            {d: np.array(v) for d, v in by_domain.items()}, draws=draws, seed=seed
        )
    # a simulated user of one replicate is one cluster: replicates share no reputation
    sums: dict[str, dict[Any, float]] = defaultdict(lambda: defaultdict(float))
    counts: dict[str, dict[Any, int]] = defaultdict(lambda: defaultdict(int))
    for row, v in values:
        user = (row.get("replicate") or 0, row["sim_user"])
        sums[row["domain"]][user] += v
        counts[row["domain"]][user] += 1
    users = {d: sorted(s) for d, s in sums.items()}
    return cluster_user(
        {d: np.array([sums[d][u] for u in users[d]]) for d in users},
        {d: np.array([counts[d][u] for u in users[d]]) for d in users},
        draws=draws,
        seed=seed,
    )


def is_target_purchase(r: Row) -> float:
    return float(r["target_purchased"])
