"""What rewriting listings gains the seats that adopt it, and what it costs the others and
the users, as adoption rises to every seat.

An adoption cell (``a`` seats rewrite under one copy strategy) is paired with the cell of the
same settings where no seat rewrites: the same seeds and requests (``copy_twin``). Measured:

- **adopter_gain**: the adopters' Top-1 share per adopting seat in the adoption cell less the
  same seats' share in the twin, episode by episode: what adopting gained them over not
  adopting. When every seat adopts, the adopters hold every Top-1 in both cells, so the gain
  is 0 by construction (only episodes that end before a Top-1 move it): the zero-sum shape
  is fixed by the protocol at full adoption, and measured below it. ``adopter_base`` is the
  same seats' share per seat in the twin (a point), what a relative gain is read against.
- **honest_loss**: the same for the seats that do not adopt (blank at full adoption).
- **target_top1**, **target_purchase**, **regret**: the users' outcomes in the adoption cell,
  and their change from the twin (``change_*``).
- **rewritten_low** and **rewritten_high**: the share of the records written after a
  purchase from a rewritten listing that are Low and High: how the records answer rewriting
  (blank without records or without such a purchase).
- **unsupported**: the mean count of words an episode's rewritten listings added that their
  items' own fields lack.

``in_order`` says whether the adopters are the first seats (P1..Pa), the order adoption
rises along; a cell where a seat adopts out of order (a lone Exaggeration seat) has its row
too, off that line.

Each carries a 95% interval from the two-stage bootstrap (``analysis.bootstrap``): seeds, then
within each seed and domain the unit the cells' episodes depend on together.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from recmarket.analysis.attacks import change, gain, interval_columns
from recmarket.analysis.bootstrap import Metric, Row, interval, level_of, ratio
from recmarket.analysis.market_measures import rate_of
from recmarket.catalogue.conditions import condition
from recmarket.config import RunConfig
from recmarket.experiments.units import coarsest, memory_unit
from recmarket.market.compositions import platform_ids

NO_COPY = "none"


def adopters(cfg: RunConfig) -> tuple[str, frozenset[str]]:
    """The copy strategy the cell's rewriting seats play, and those seats (``none`` and no
    seats where none rewrites). Several strategies in one cell are named together
    (``copy-emphasis+copy-stuffing``)."""
    found = {
        seat: setting.name for seat, setting in cfg.market.listing_copy.items() if setting.rewrites
    }
    if not found:
        return NO_COPY, frozenset()
    return "+".join(sorted(set(found.values()))), frozenset(found)


def in_order(cfg: RunConfig) -> bool:
    """Whether the cell's adopters are the first seats (P1..Pa), the adoption order the
    experiment rises along; a seat adopting out of order (a lone P3) is not on that line."""
    _, seats = adopters(cfg)
    return seats == frozenset(platform_ids(cfg.market.n_platforms)[: len(seats)])


def condition_label(cfg: RunConfig) -> str:
    """The condition as the paper names it: NoRep, LocalRep (a user's own records),
    Shared-1 (one history every user shares), else the condition and scope."""
    if not condition(cfg.condition).reputation:
        return "NoRep" if cfg.condition == "no-rep" else cfg.condition
    named = {"local": "LocalRep", "shared": "Shared-1"}
    return named.get(cfg.reputation_scope, f"{cfg.condition} {cfg.reputation_scope}")


def schedule(cfg: RunConfig) -> str:
    """The cell's schedule: requests a user, by users a profile. A memoryless condition is
    played on the schedule of each condition with memory it is compared with (one user a
    profile with many requests, or many users with a few), so it can have a row for each."""
    return f"{cfg.episodes.requests}x{cfg.episodes.users_per_profile}"


def copy_twin(cfg: RunConfig) -> str:
    """What identifies the cell an adoption cell is paired with: its settings with no seat
    rewriting (the seed pooled over)."""
    market = cfg.market.model_copy(update={"listing_copy": {}})
    return cfg.model_copy(update={"market": market, "seed": 0}).digest()


def _label_share(label: str) -> Metric:
    """The share of records after a purchase from a rewritten listing that are ``label``."""

    def parts(row: Row) -> tuple[float, float]:
        if not row.get("bought_rewritten") or row.get("rep_label") is None:
            return 0.0, 0.0
        return float(row["rep_label"] == label), 1.0

    return Metric(parts, ratio)


def per_seat(found: dict[str, float], seats: int) -> dict[str, float]:
    """Interval columns of a share over ``seats`` seats, per seat."""
    return {k: round(v / seats, 4) for k, v in found.items()}


def adoption_row(
    cfg: RunConfig, rows: Sequence[Row], twin: tuple[RunConfig, Sequence[Row]] | None
) -> dict[str, Any]:
    """One cell's row: its strategy, condition and adoption, and its measures."""
    strategy, seats = adopters(cfg)
    unit = memory_unit(cfg)
    row: dict[str, Any] = {
        "strategy": strategy,
        "condition": condition_label(cfg),
        "adopters": len(seats),
        "schedule": schedule(cfg),
        "seats": "+".join(sorted(seats, key=platform_ids(cfg.market.n_platforms).index)),
        "in_order": in_order(cfg),
    }
    if twin is not None and seats:
        base_cfg, base = twin
        unit = coarsest([memory_unit(base_cfg), unit])
        others = frozenset(platform_ids(cfg.market.n_platforms)) - seats
        won = gain(base, rows, "top1_platform", seats, unit)
        row |= per_seat(interval_columns("adopter_gain", won), len(seats))
        held = sum(r.get("top1_platform") in seats for r in base) / max(len(base), 1)
        row["adopter_base"] = round(held / len(seats), 4)
        if others:
            lost = gain(base, rows, "top1_platform", others, unit)
            row |= per_seat(interval_columns("honest_loss", lost), len(others))
        for name, column in (("target_purchase", "target_purchased"), ("regret", "regret")):
            row |= interval_columns(f"change_{name}", change(base, rows, column, unit))
    for name, metric in (
        ("target_top1", rate_of("target_top1")),
        ("target_purchase", rate_of("target_purchased")),
        ("regret", rate_of("regret")),
        ("unsupported", rate_of("words_unsupported")),
        ("rewritten_low", _label_share("low")),
        ("rewritten_high", _label_share("high")),
    ):
        if any(metric.parts(r)[1] for r in rows):
            row |= interval_columns(name, interval([rows], metric, level_of, unit))
    return row | {"interval": f"95% two-stage bootstrap over seeds and {unit}s"}


def adoption_table(cells: Sequence[tuple[str, RunConfig, Sequence[Row]]]) -> list[dict[str, Any]]:
    """One row per cell (its name in ``cell``): the adoption cells beside their twins, in
    order of strategy, condition and adoption. An adoption cell without a twin keeps its
    levels, with a note."""
    twins = {copy_twin(cfg): (cfg, rows) for _, cfg, rows in cells if not adopters(cfg)[1]}
    table = []
    for name, cfg, rows in cells:
        twin = twins.get(copy_twin(cfg))
        row = {"cell": name} | adoption_row(cfg, rows, twin)
        if twin is None and row["adopters"]:
            row["note"] = "no twin (its settings with no seat rewriting)"
        table.append(row)
    return sorted(
        table,
        key=lambda r: (r["strategy"], r["condition"], r["schedule"], r["adopters"], r["seats"]),
    )
