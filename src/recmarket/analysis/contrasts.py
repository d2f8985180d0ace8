"""Rates of one cell and contrasts between two cells that share requests, each with the
bootstrap design its condition calls for (Appendix A.3): under reputation, episodes of one
simulated user are not independent, so users are resampled; otherwise requests are. Cells
pooled over seeds resample the seeds too (``recmarket.analysis.bootstrap``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from recmarket.analysis.bootstrap import (
    DRAWS,
    Interval,
    Row,
    difference,
    interval,
    level_of,
    mean_of,
    unpaired_difference,
)
from recmarket.catalogue.conditions import condition


def unit_of(*arms: Sequence[Row]) -> str:
    """Users when any arm kept reputation, requests otherwise."""
    stateful = any(rows and condition(rows[0]["condition"]).reputation for rows in arms)
    return "user" if stateful else "request"


def contrast(
    rows_a: Sequence[Row],
    rows_b: Sequence[Row],
    value: Callable[[Row], float],
    *,
    draws: int = DRAWS,
    seed: int = 0,
) -> Interval:
    """Arm B minus arm A of ``value`` per episode, macro over domains, with a 95% interval:
    cluster-user when either arm used reputation, paired-request otherwise."""
    arms = [rows_a, rows_b]
    return interval(arms, mean_of(value), difference, unit_of(*arms), draws=draws, seed=seed)


def rate(
    rows: Sequence[Row],
    value: Callable[[Row], float],
    *,
    unit: str | None = None,
    draws: int = DRAWS,
    seed: int = 0,
) -> Interval:
    """One cell's macro rate of ``value`` with a 95% interval over ``unit`` (by default
    users under reputation, requests otherwise; ``memory_unit`` reads it off a config)."""
    unit = unit or unit_of(rows)
    return interval([rows], mean_of(value), level_of, unit, draws=draws, seed=seed)


def is_target_purchase(r: Row) -> float:
    """1 for an episode that bought the target, else 0."""
    return float(r["target_purchased"])


def paired_and_unpaired(
    rows_a: Sequence[Row],
    rows_b: Sequence[Row],
    value: Callable[[Row], float],
    unit: str,
    *,
    draws: int = DRAWS,
) -> tuple[Interval, Interval]:
    """B minus A of ``value`` (in points), paired episode by episode and as if the arms were
    independent: what sharing the requests (a branch and its parent) buys in width."""
    metric = mean_of(value, 100.0)
    paired = interval([rows_a, rows_b], metric, difference, unit, draws=draws)
    return paired, unpaired_difference(rows_a, rows_b, metric, unit, draws=draws)
