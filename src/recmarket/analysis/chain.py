"""The accountability chain of a LocalRep contrast, link by link, with 95% intervals.

The paper's headline is a chain: attention leaves overclaiming (Exaggeration's Top-1 share
falls), reaches the items that fit (the target is ranked first more often), and more targets
are bought. A purchase change alone does not show which way it came, so each contrast is
decomposed into the links between its arms:

- the target shortlisted, ranked first, and bought (points, LocalRep minus NoRep);
- the target ranked first, by the family that proposed it (a discount that falls on
  Exaggeration's offers falls on the targets Exaggeration seats propose too);
- among the episodes whose Top-1 item moved between the arms, how often the new Top-1 is the
  target, beside how often the old one was.

The arms share their episodes (records act after retrieval), so every link is paired and
resampled over the same units as the contrast itself (``recmarket.analysis.bootstrap``).
``breaks`` names the first link whose interval does not show the move the chain needs.

A chain can only move the target's Top-1 as far as belief in claims can: ``ceiling`` reads,
from the base arm's episodes, the range of target Top-1 the ranker's rule reaches over every
point of a grid of beliefs per family (``market.belief_grid``). Where that range is under
``EXPRESSIBLE`` points, no reputation design could move the target in those pools, and the
chain "cannot express" the effect rather than breaking.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from recmarket.analysis.bootstrap import (
    DRAWS,
    Interval,
    Metric,
    Row,
    difference,
    interval,
    level_of,
    mean_of,
    ratio,
)
from recmarket.analysis.shares import FAMILIES, share_of, top1_share
from recmarket.market.belief_grid import mask_bits

STAGES = ("target_shortlisted", "target_top1", "target_purchased")
MOVES = ("moved_to_target", "moved_from_target")
# The links a chain needs, in order: (column, the sign its change must have, in words).
LINKS = (
    ("exaggeration_top1", -1, "Exaggeration's Top-1 share"),
    ("target_top1", 1, "target Top-1"),
    ("target_purchased", 1, "target purchase"),
)


EXPRESSIBLE = 2.0  # points of target Top-1 the beliefs must span for a chain to be read


@dataclass(frozen=True)
class Ceiling:
    """The lowest and highest target Top-1 (percent) the ranker's rule reaches on a base
    arm's pools over the belief grid: the most any reputation design could move it there."""

    low: float
    high: float

    @property
    def expressible(self) -> bool:
        """Whether beliefs move the target's Top-1 by at least ``EXPRESSIBLE`` points."""
        return self.high - self.low >= EXPRESSIBLE


def ceiling(rows: Sequence[Row]) -> Ceiling | None:
    """The base arm's ceiling, each grid point's share the mean over domains of the share
    of episodes whose target it ranks first (None where the rows store no belief grid:
    a store older than schema 9)."""
    if not rows or any("target_top1_grid" not in r for r in rows):
        return None
    by_domain: dict[str, list[np.ndarray]] = {}
    for r in rows:
        by_domain.setdefault(r["domain"], []).append(mask_bits(r["target_top1_grid"]))
    shares = np.mean([np.mean(masks, axis=0) for masks in by_domain.values()], axis=0) * 100
    return Ceiling(round(float(shares.min()), 2), round(float(shares.max()), 2))


def proposers(row: Row) -> list[str]:
    """The families that proposed the episode's target (none where the rows do not say)."""
    return (row.get("target_policies") or "").split(",")


def proposed_by(family: str) -> Metric:
    """Percent of the episodes whose target ``family`` proposed in which the target was
    ranked first."""
    return share_of(lambda r: family in proposers(r), lambda r: bool(r["target_top1"]))


def rate_of(column: str) -> Metric:
    """Percent of episodes whose 0/1 ``column`` is set."""
    return mean_of(lambda r: float(r[column]), 100.0)


def _pairs(base: Sequence[Row], treated: Sequence[Row]) -> list[dict[str, Any]]:
    """One row per episode of both arms, with the base's identity and units: whether its
    Top-1 item moved, and whether the target was Top-1 after and before."""
    after = {(r.get("replicate"), r["domain"], r["ord"]): r for r in treated}
    out = []
    for b in base:
        t = after[(b.get("replicate"), b["domain"], b["ord"])]
        moved = b.get("top1_item") != t.get("top1_item")
        out.append(
            {
                **{k: b[k] for k in ("domain", "ord", "episode_id", "sim_user", "profile")},
                "replicate": b.get("replicate"),
                "moved": moved,
                "to": moved and bool(t["target_top1"]),
                "from": moved and bool(b["target_top1"]),
            }
        )
    return out


def _moved_share(column: str) -> Metric:
    return Metric(lambda r: (float(r[column]), float(r["moved"])), lambda s: ratio(s, 100.0))


def chain(
    base: Sequence[Row], treated: Sequence[Row], unit: str, *, draws: int = DRAWS
) -> dict[str, Interval]:
    """Every link of the contrast ``treated`` minus ``base`` (arms holding the same
    episodes), by name: the stages' and Exaggeration's Top-1 changes, the target's Top-1
    change by proposing family (``target_top1_via_FAMILY``, where the rows record who
    proposed it), and the shares of moved Top-1s that went to and came from the target."""
    arms = [base, treated]
    out: dict[str, Interval] = {}
    for stage in STAGES:
        out[stage] = interval(arms, rate_of(stage), difference, unit, draws=draws)
    if any(r["top1_policy"] == "exaggeration" for rows in arms for r in rows):
        out["exaggeration_top1"] = interval(
            arms, top1_share("exaggeration"), difference, unit, draws=draws
        )
    if all(r.get("target_policies") is not None or not r["target_present"] for r in base):
        for family in FAMILIES:
            if any(family in proposers(r) for r in base):
                out[f"target_top1_via_{family}"] = interval(
                    arms, proposed_by(family), difference, unit, draws=draws
                )
    if all("top1_item" in r for r in base):
        pairs = _pairs(base, treated)
        for name, column in zip(MOVES, ("to", "from"), strict=True):
            out[name] = interval([pairs], _moved_share(column), level_of, unit, draws=draws)
    return out


def said(value: Interval) -> str:
    """An estimate with its interval, in points: +1.2 [0.3, 2.1]."""
    return f"{value.estimate:+.2f} [{value.low:+.2f}, {value.high:+.2f}]"


def breaks(links: dict[str, Interval], limit: Ceiling | None = None) -> str:
    """Where the chain breaks, in words: the first link whose interval does not exclude
    zero in the direction the chain needs; "holds" when every link measured does; "cannot
    express" where it would break and the base arm's ``limit`` says no belief could move
    the target's Top-1."""
    found = _first_break(links)
    if found != "holds" and limit is not None and not limit.expressible:
        return (
            f"cannot express: over every belief the ranker's rule ranks the target first in "
            f"{limit.low:.1f}-{limit.high:.1f}% of the base arm's pools ({found})"
        )
    return found


def _first_break(links: dict[str, Interval]) -> str:
    for column, sign, words in LINKS:
        value = links.get(column)
        if value is None:
            continue
        if value.low * sign > 0 and value.high * sign > 0:
            continue
        against = value.estimate * sign < 0 and value.excludes(0)
        how = "moves the other way" if against else "no detectable move"
        return f"breaks at {words}: {how}, {said(value)}"
    return "holds"


# A chain table's columns, whichever links a contrast has (empty where it has none).
COLUMNS = (
    "exaggeration_top1",
    *STAGES,
    *(f"target_top1_via_{family}" for family in FAMILIES),
    *MOVES,
)


# The links a LocalRep contrast splits into the Rep instruction's part (the instruction cell
# minus the base) and the records' (LocalRep minus the instruction cell).
SPLIT = ("exaggeration_top1", "target_top1", "target_purchased")
PARTS = ("instruction", "records")


def chain_row(
    name: str,
    links: dict[str, Interval],
    limit: Ceiling | None = None,
    split: dict[str, dict[str, Interval]] | None = None,
) -> dict[str, Any]:
    """The contrast's links as one table row: each estimate with its low and high ends
    (empty for a link the contrast has not), the ceiling, the instruction's and the
    records' parts of the split links (``split``: part -> links, empty without an
    instruction cell), then where the chain breaks and how the intervals were made."""
    row: dict[str, Any] = {"contrast": name}
    columns = [(c, links.get(c)) for c in COLUMNS]
    columns += [
        (f"{part}_{c}", (split or {}).get(part, {}).get(c)) for part in PARTS for c in SPLIT
    ]
    for column, value in columns:
        for suffix, number in (("", "estimate"), ("_low", "low"), ("_high", "high")):
            row[column + suffix] = "" if value is None else round(getattr(value, number), 2)
    row["ceiling_low"] = "" if limit is None else limit.low
    row["ceiling_high"] = "" if limit is None else limit.high
    row["chain"] = breaks(links, limit)
    row["interval_method"] = links["target_purchased"].method
    return row
