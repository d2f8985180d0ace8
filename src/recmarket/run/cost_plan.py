"""The cheapest way to buy a plan's calls that meets a deadline.

Each cell's calls can be bought several ways (``estimate.OPTIONS``): live at the standard
rate, with a prefix cache's hits at its rate, in a provider's off-peak hours, on a flex
tier, or as batch jobs. A *plan* buys every cell one way where it can, and falls back to
live with cache hits where it cannot (no flex tier; a cell whose calls wait on one
another cannot be batched). Its wall time follows from stated assumptions, not from any
run:

- a live call takes ``CALL_SECONDS`` plus its completion written at ``WRITE_SPEED`` tokens a
  second (hosted APIs stream 50-100 tokens a second after about a second's wait); a flex
  call ``FLEX_SLOWER`` times as long (the tier is sold as slower, with no figure);
- live cells share the endpoint's concurrency (``concurrency``, as a reproduce plays them
  in one process), and no cell is faster than its longest chain of episodes that wait on
  one another, every round of calls in each;
- off-peak hours are the provider's only (DeepSeek: 17 of 24), so the same work takes
  24/17 as long;
- batch jobs of all cells run at once at the provider, and each round of calls waits one
  turnaround, ``batch_hours`` (default 24: the completion window, the only promise).

The cheapest plan whose wall time meets ``deadline`` hours is chosen.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from recmarket.run.estimate import CellCost

CALL_SECONDS = 1.0
WRITE_SPEED = 60.0  # tokens a second
FLEX_SLOWER = 2.0
OFF_PEAK_SHARE = 17 / 24  # DeepSeek's off-peak hours in a day (prices.toml)
BATCH_HOURS = 24.0
RE_ASK_ROUNDS = 1  # a batch cell's invalid answers are asked again in one more round
# What each plan buys a cell with, in order of preference; the last is always sold.
PLANS: dict[str, tuple[str, ...]] = {
    "live": ("cached-input",),
    "off-peak": ("off-peak", "cached-input"),
    "flex": ("flex", "cached-input"),
    "batch + live": ("batch", "cached-input"),
    "batch + off-peak": ("batch", "off-peak", "cached-input"),
    "batch + flex": ("batch", "flex", "cached-input"),
}


@dataclass(frozen=True)
class PlanCost:
    """One plan: what it costs, against the standard rate with no cache hits, how long it
    takes, and how many cells it buys each way."""

    name: str
    cost: float
    standard: float
    hours: float
    ways: dict[str, int]

    @property
    def share(self) -> float | None:
        """Its cost as a share of the standard live price (None: nothing is priced)."""
        return self.cost / self.standard if self.standard else None


def _way(cell: CellCost, preference: tuple[str, ...]) -> str:
    return next((w for w in preference if cell.options.get(w) is not None), preference[-1])


def _call_seconds(cell: CellCost, way: str) -> float:
    per_call = CALL_SECONDS + cell.completion_tokens / max(cell.calls, 1.0) / WRITE_SPEED
    return per_call * (FLEX_SLOWER if way == "flex" else 1.0)


def plan_cost(name: str, cells: Sequence[CellCost], batch_hours: float = BATCH_HOURS) -> PlanCost:
    """The plan ``name`` (``PLANS``) over the cells, each priced once."""
    unique = [c for c in {c.run_dir: c for c in cells}.values() if c.calls]
    cost = standard = 0.0
    shared_seconds, chain_seconds, batch_rounds = 0.0, 0.0, 0
    ways: dict[str, int] = {}
    for cell in unique:
        way = _way(cell, PLANS[name])
        ways[way] = ways.get(way, 0) + 1
        cost += cell.options[way] or 0.0
        standard += cell.options.get("live") or 0.0
        if way == "batch":
            batch_rounds = max(batch_rounds, cell.rounds + RE_ASK_ROUNDS)
            continue
        seconds = _call_seconds(cell, way)
        slower = 1 / OFF_PEAK_SHARE if way == "off-peak" else 1.0
        shared_seconds += cell.calls * seconds * slower / cell.concurrency
        chain = cell.longest_stream * cell.rounds * seconds * slower if cell.longest_stream else 0
        chain_seconds = max(chain_seconds, chain)
    live_hours = max(shared_seconds, chain_seconds) / 3600
    return PlanCost(name, cost, standard, max(live_hours, batch_rounds * batch_hours), ways)


def cheapest(
    cells: Sequence[CellCost], deadline: float | None = None, batch_hours: float = BATCH_HOURS
) -> tuple[list[PlanCost], PlanCost | None]:
    """Every distinct plan (two that buy every cell the same way are one), and the
    cheapest whose hours meet ``deadline`` (None: none does)."""
    plans: dict[tuple[tuple[str, int], ...], PlanCost] = {}
    for name in PLANS:
        found = plan_cost(name, cells, batch_hours)
        plans.setdefault(tuple(sorted(found.ways.items())), found)
    distinct = list(plans.values())
    meeting = [p for p in distinct if deadline is None or p.hours <= deadline]
    return distinct, min(meeting, key=lambda p: (p.cost, p.hours), default=None)
