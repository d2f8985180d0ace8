"""The built-in episode measures, and a cell's measures with their 95% intervals from the
two-stage bootstrap over the unit the cell's episodes depend on together
(``contrasts.memory_unit``).

- **The funnel**: the target present in the pool, fitting best, shortlisted, ranked first,
  bought; any, no and off-target purchase; same-item Top-1s and forced inclusions, each the
  share of episodes; the mean pool size and target copies.
- **User welfare**: target purchase, regret (where the episode reached a decision),
  off-target purchase and no purchase, per episode.
- **Concentration**: the Herfindahl-Hirschman index of Top-1 positions and of purchases
  across platforms, the sum of squared shares: 1/N when N platforms share equally, 1 when one
  takes everything. Seats one owner runs (Sybil copies) count as their owner. The Gini
  coefficient of exposure, the shortlist places each platform got: 0 when equal, (N - 1)/N
  when one platform got them all.
- **Attention by family**: each paper family's share of Top-1 positions and of purchases.
- **Entrants' access**: their share of shortlist places (from the rounds they are in) and
  the rounds from entry to their first record, a point value per seed and domain.

Each measure is a ``MarketMeasure`` in ``MARKET_MEASURES`` (``recmarket.catalogue.measures``),
the built-in ones registered here, beside what they compute with, each with the places that
show it; another package adds one under the ``recmarket.measures`` entry-point group, and
every place its declaration names carries it by its name.

Shares are ratios of per-episode sums, so the bootstrap resamples clusters of episodes and
recomputes each index from the resampled totals. An index of shares (HHI, Gini) is biased
upward by sampling noise: with n episodes the plug-in HHI overstates by about (1 - HHI)/n,
and at equal shares every resample is at least as concentrated, so its percentile interval
can lie above its estimate. Compare indices of cells with similar episode counts, and read a
difference smaller than that bias as none.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from recmarket import __version__
from recmarket.analysis.bootstrap import Interval, Metric, Row, interval, level_of, ratio
from recmarket.analysis.shares import FAMILIES, share_of
from recmarket.catalogue.measures import (
    MARKET_MEASURES,
    WITH_INTERVALS,
    MarketMeasure,
    Place,
    shown_at,
    where,
)
from recmarket.config import RunConfig
from recmarket.experiments.units import memory_unit
from recmarket.market.build import seats

DRAWS = 5_000  # per measure and cell: a cell table holds many; percentiles settle well before


def hhi(shares: np.ndarray) -> np.ndarray:
    """The sum of squared shares over the last axis (shares summing to 1)."""
    return np.sum(np.square(shares), axis=-1)


def gini(values: np.ndarray) -> np.ndarray:
    """The Gini coefficient of non-negative values over the last axis: the mean absolute
    difference over twice the mean (0: all equal; (n - 1)/n: one holds everything)."""
    values = np.asarray(values, dtype=float)
    n = values.shape[-1]
    diffs = np.abs(values[..., :, None] - values[..., None, :]).sum(axis=(-1, -2))
    total = values.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return diffs / (2 * n * total)


def owners(cfg: RunConfig) -> dict[str, str]:
    """Each seat's owner: itself, or the seat whose Sybil copy it is."""
    return {s.platform_id: s.owned_by for s in seats(cfg.market)}


def _one_hot(owner_of: dict[str, str], names: list[str], seat: str | None) -> list[float]:
    found = [0.0] * (len(names) + 1)
    if seat is not None:
        found[names.index(owner_of.get(seat, seat))] = 1.0
        found[-1] = 1.0
    return found


def concentration(column: str, owner_of: dict[str, str]) -> Metric:
    """HHI of ``column`` (top1_platform, purchased_platform) across owners."""
    names = sorted(set(owner_of.values()))

    def finish(sums: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            return hhi(sums[..., :-1] / sums[..., -1:])

    return Metric(lambda r: _one_hot(owner_of, names, r.get(column)), finish)


def exposure_gini(owner_of: dict[str, str]) -> Metric:
    """The Gini of shortlist places across owners (each owner's places summed)."""
    names = sorted(set(owner_of.values()))

    def parts(row: Row) -> list[float]:
        found = [0.0] * len(names)
        for seat in (row.get("shown_platforms") or "").split(","):
            if seat:
                found[names.index(owner_of.get(seat, seat))] += 1.0
        return found

    return Metric(parts, gini)


def rate_of(column: str) -> Metric:
    """The mean of a 0/1 or real column over the episodes that have it."""

    def parts(row: Row) -> tuple[float, float]:
        value = row.get(column)
        return (0.0, 0.0) if value is None else (float(value), 1.0)

    return Metric(parts, ratio)


FUNNEL: frozenset[Place] = frozenset({"funnel", "paper", "ppi"})
TABLE: frozenset[Place] = FUNNEL | {"table"}
OUTCOME: frozenset[Place] = WITH_INTERVALS - {"frontier"} | {"funnel"}
RATES: tuple[tuple[str, str, str, str, frozenset[Place]], ...] = (
    # the funnel's stages and outcomes: (name, heading, the column averaged, says, places)
    ("target_present", "target present", "target_present", "the target was in the pool", TABLE),
    ("target_best_fit", "target best fit", "target_best_fit", "the target fit best", FUNNEL),
    ("target_shortlisted", "target shortlisted", "target_shortlisted", "shortlisted", TABLE),
    ("target_top1", "target top-1", "target_top1", "the target was ranked first", TABLE),
    (
        "target_purchase",
        "target purchase",
        "target_purchased",
        "episodes whose user bought the held-out target",
        WITH_INTERVALS | TABLE,
    ),
    ("any_purchase", "any purchase", "any_purchase", "the user bought something", TABLE),
    ("no_purchase", "no purchase", "no_purchase", "episodes whose user bought nothing", OUTCOME),
    (
        "off_target_purchase",
        "off-target purchase",
        "off_target_purchase",
        "episodes whose user bought another item than the target",
        OUTCOME,
    ),
    ("same_item_top1", "same item top-1", "same_item_top1", "another seat offered it", FUNNEL),
    ("forced_inclusion", "forced inclusion", "forced_inclusion", "a seat was forced", FUNNEL),
)
# Where seats rewrite their listings (market.copy); absent elsewhere, so a cell without a
# rewriting seat has none of them (its episodes hold no value to average). Shown where a
# cell is measured (cells.csv, run --json, the export), not in the tables of designs that
# have no rewriting seat (the frontier, the paper comparison, the PPI table).
COPIED: frozenset[Place] = frozenset({"cells"})
COPY_RATES: tuple[tuple[str, str, str, str, frozenset[Place]], ...] = (
    (
        "top1_rewritten",
        "top-1 rewritten",
        "top1_rewritten",
        "episodes whose Top-1 showed a rewritten listing",
        COPIED,
    ),
    (
        "bought_rewritten",
        "bought rewritten",
        "bought_rewritten",
        "episodes whose user bought from a rewritten listing",
        COPIED,
    ),
)
RATES += COPY_RATES
MEANS = (  # (name, heading, the column, says): counts, shown as they are
    ("pool_size", "mean pool size", "pool_size", "candidates in the pool"),
    ("target_copies", "mean target copies", "target_copies", "seats that offered the target"),
)

for name, label, column, says, places in RATES:
    MARKET_MEASURES.register(
        MarketMeasure(name, label, (column,), says, lambda cfg, c=column: rate_of(c), shown=places)
    )
for name, label, column, says in MEANS:
    MARKET_MEASURES.register(
        MarketMeasure(
            name,
            label,
            (column,),
            says,
            lambda cfg, c=column: rate_of(c),
            share=False,
            shown=frozenset({"funnel", "paper"}),
        )
    )
for built_in in (
    MarketMeasure(
        "regret",
        "regret",
        ("regret",),
        "the best available fit less the bought one's, where the episode reached a decision",
        lambda cfg: rate_of("regret"),
        share=False,
    ),
    MarketMeasure(
        "words_unsupported",
        "unsupported words",
        ("words_unsupported",),
        "words an episode's rewritten listings added that their items' own fields lack",
        lambda cfg: rate_of("words_unsupported"),
        share=False,
        shown=COPIED,
    ),
    MarketMeasure(
        "hhi_top1",
        "HHI top-1",
        ("top1_platform",),
        "HHI of Top-1 positions across owners",
        lambda cfg: concentration("top1_platform", owners(cfg)),
    ),
    MarketMeasure(
        "hhi_purchase",
        "HHI purchase",
        ("purchased_platform",),
        "HHI of purchases across owners",
        lambda cfg: concentration("purchased_platform", owners(cfg)),
    ),
    MarketMeasure(
        "exposure_gini",
        "exposure Gini",
        ("shown_platforms",),
        "Gini of shortlist places across owners",
        lambda cfg: exposure_gini(owners(cfg)),
    ),
):
    MARKET_MEASURES.register(built_in)
PAPER_PPI: frozenset[Place] = frozenset({"paper", "ppi"})
# the family shares a cell is measured by with an interval (the rest: the paper and the PPI)
FAMILY_SHOWN: dict[str, frozenset[Place]] = {"exaggeration_top1": WITH_INTERVALS | {"table"}}
for family in FAMILIES:  # each paper family's share of Top-1 places and of purchases
    for slot, column in (("top1", "top1_policy"), ("purchase", "purchased_policy")):
        MARKET_MEASURES.register(
            MarketMeasure(
                f"{family}_{slot}",
                f"{family.capitalize()} {slot.replace('top1', 'top-1')}",
                (column,),
                f"the {family.capitalize()} family's share of {slot} places",
                lambda cfg, c=column, f=family: share_of(
                    lambda r: r.get(c) is not None, lambda r: r.get(c) == f, scale=1.0
                ),
                shown=FAMILY_SHOWN.get(f"{family}_{slot}", PAPER_PPI),
            )
        )


INTERVAL = "95%, over the cell's memory units (cells.csv: measures_interval)"


def measure_rows() -> list[dict[str, str]]:
    """Every registered measure with what it reads, how its interval is made, and where its
    code comes from (an outside one's distribution, version and source digest), as the
    report records them."""
    rows = []
    for measure in (m for m in MARKET_MEASURES if m.unit == "episode"):  # the card lists its own
        origin = MARKET_MEASURES.origin(measure.name)
        rows.append(
            {
                "measure": measure.name,
                "says": measure.says,
                "reads": ", ".join(measure.reads),
                "unit": measure.unit,
                "shown": where(measure),
                "interval": INTERVAL,
                "distribution": origin.distribution if origin else "recmarket",
                "version": origin.version if origin else __version__,
                "digest": origin.digest if origin else "",
            }
        )
    return rows


def market_measures(
    cfg: RunConfig, rows: Sequence[Row], draws: int = DRAWS
) -> dict[str, float | str]:
    """A cell's measures (those shown with intervals: ``shown_at("cells")``), each with
    ``_low`` and ``_high``, and how the intervals were made."""
    unit = memory_unit(cfg)
    found: dict[str, float | str] = {}
    method = ""
    for measure in shown_at("cells"):
        name = measure.name
        value: Interval = interval([rows], measure.make(cfg), level_of, unit, draws=draws)
        found |= {
            name: round(value.estimate, 4),
            f"{name}_low": round(value.low, 4),
            f"{name}_high": round(value.high, 4),
        }
        method = value.method
    return found | entrant_access(cfg, rows) | {"measures_interval": method}


def entrant_access(cfg: RunConfig, rows: Sequence[Row]) -> dict[str, float | str]:
    """Entrants' share of the shortlist places of the rounds they were in, and the rounds
    from entry to their first record (mean over seeds and domains; blank: never or none)."""
    entrants = {s.platform_id: s.after_rounds for s in seats(cfg.market) if s.after_rounds}
    if not entrants:
        return {"entrant_shortlist_share": "", "entrant_rounds_to_record": ""}
    places = ours = 0
    first: dict[tuple[Any, str, str], int] = {}
    for row in rows:
        shown = [s for s in (row.get("shown_platforms") or "").split(",") if s]
        if any(row["ord"] >= after for after in entrants.values()):
            places += len(shown)
            ours += sum(s in entrants for s in shown)
        if row.get("rep_platform") in entrants and row.get("rep_label") is not None:
            key = (row.get("replicate"), row["domain"], row["rep_platform"])
            first[key] = min(first.get(key, row["ord"]), row["ord"])
    waits = [order - entrants[seat] for (_, _, seat), order in first.items()]
    return {
        "entrant_shortlist_share": round(ours / places, 4) if places else "",
        "entrant_rounds_to_record": round(float(np.mean(waits)), 1) if waits else "",
    }
