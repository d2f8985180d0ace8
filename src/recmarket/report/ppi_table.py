"""The report's prediction-powered table (``tables/ppi.csv``) and its section: for every
funnel rate, policy share and market measure of each piloted cell, and for every contrast
of two cells, the surrogate's (offline-only), the pilot's (pilot-only) and the
prediction-powered estimate with their 95% intervals, the surrogate's bias on the pilot's
units, the correlation the correction rests on and the effective pilot size.

Every value is a fraction (a rate, a share, a concentration), a contrast a difference of
fractions. Each estimate's resampling is seeded by its name, so a report made twice from the
same stores writes the same table.
"""

from __future__ import annotations

import html
import zlib
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from recmarket.analysis.bootstrap import Metric, Row, difference, level_of
from recmarket.analysis.market_measures import shown_at
from recmarket.analysis.ppi import Estimate, estimate
from recmarket.analysis.ppi_units import Folds, UnitParts, unit_parts
from recmarket.analysis.sequences import anytime
from recmarket.config import RunConfig
from recmarket.report.html import table_html
from recmarket.report.pilot_data import PilotedCell, contrasts

ONE_REPLAY_DRAWS = 1_000  # the one-play correlation is a side figure: fewer draws
FIXED_N = "fixed-n: valid for a pilot whose size was fixed before it was looked at"
ANYTIME = (
    "anytime: an asymptotic confidence sequence, valid however often the pilot is looked "
    "at and grown (narrowest at the first look's size)"
)


def outcomes(cfg: RunConfig) -> dict[str, Metric]:
    """The measures a piloted cell is estimated on, by name: those shown in this table
    (``shown_at("ppi")``: the funnel's rates, the market measures, each paper family's
    share of Top-1 places and of purchases, and any a plugin declares for it)."""
    return {m.name: m.make(cfg) for m in shown_at("ppi")}


def one_play(replays: Sequence[Sequence[Sequence[Row]]]) -> Sequence[Sequence[Sequence[Row]]]:
    """The surrogate's plays cut to one, to show what its R bought: a replay, in the form
    every replay has (its decisions at their expectation where it kept their chances), or
    the study's own play where there is no other."""
    return replays[1:2] if len(replays) > 1 else replays[:1]


def _row(
    name: str,
    estimand: str,
    kind: str,
    outcome: str,
    cells: str,
    unit: str,
    parts: UnitParts,
    e: Estimate,
    first_look: float,
    one_replay: float,
) -> dict[str, Any]:
    """One estimand's row; ``first_look`` is the first look's share over the pilot's,
    ``one_replay`` the correlation had the surrogate's prediction been its one play."""

    def r(x: float) -> float:
        return round(float(x), 6) if np.isfinite(x) else float("nan")

    values: dict[str, float] = {}
    for part in ("offline", "pilot", "ppi", "bias"):
        centre, low, high = getattr(e, part)
        values |= {part: r(centre), f"{part}_low": r(low), f"{part}_high": r(high)}
    low, high = anytime(e.ppi[0], e.unit_spread, e.pilot_n, e.pilot_n * first_look, df=e.df)
    return {
        "name": name,
        "estimand": estimand,
        "kind": kind,
        "outcome": outcome,
        "cells": cells,
        "unit": unit,
        "pilot_n": e.pilot_n,
        "units": parts.units,
        "strata": e.strata,
        "n_strata": e.n_strata,
        **values,
        "correlation": r(e.correlation),
        "correlation_one_replay": r(one_replay),
        "effective_n": r(e.effective_n),
        "weight": r(e.weight),
        "df": e.df if e.df is not None else "",
        "ppi_anytime_low": r(low),
        "ppi_anytime_high": r(high),
        "interval": e.method,
        "validity": f"{FIXED_N}; {ANYTIME}",
    }


def _estimated(
    arms: list[PilotedCell],
    statistic: Callable[[np.ndarray], np.ndarray],
    kind: str,
    cells: str,
    only: set[str] | None,
) -> list[dict[str, Any]]:
    rows = []
    unit = arms[0].unit
    replays = [[cell.plays[i] for cell in arms] for i in range(len(arms[0].plays))]
    pilot = [cell.pilot for cell in arms]
    estimand = arms[0].estimand
    noise = [[c.noise[r] for c in arms] for r in range(len(arms[0].noise))]
    if estimand != "expected":
        noise = []
    folds: Folds | None = None
    if arms[0].fold_plays:  # the surrogate calibrated on the pilot: cross-fitted
        plays = [
            [[cell.fold_plays[k][r] for cell in arms] for r in range(len(fold))]
            for k, fold in enumerate(arms[0].fold_plays)
        ]
        folds = (plays, arms[0].fold_of)
    for outcome, metric in outcomes(arms[0].config).items():
        if only is not None and outcome not in only:
            continue
        chances = arms[0].inclusion_of
        parts = unit_parts(
            replays, pilot, metric.parts, unit, folds, noise=noise, inclusion=chances
        )
        name = f"{cells}: {outcome}"
        seed = zlib.crc32(name.encode())
        least = arms[0].least
        found = estimate(parts, metric, statistic, seed=seed, least=least)
        one = found.correlation  # what R replays bought: the correlation from one play
        if len(replays) > 1 and folds is None:
            single = unit_parts(
                one_play(replays), pilot, metric.parts, unit, noise=noise, inclusion=chances
            )
            one = estimate(
                single, metric, statistic, draws=ONE_REPLAY_DRAWS, seed=seed, least=least
            ).correlation
        rows.append(
            _row(name, estimand, kind, outcome, cells, unit, parts, found, arms[0].first_look, one)
        )
    return rows


def ppi_rows(cells: list[PilotedCell], only: set[str] | None = None) -> list[dict[str, Any]]:
    """Every level of every piloted cell, then every contrast (later cell minus earlier);
    ``only`` keeps the outcomes of those names."""
    rows = []
    for cell in cells:
        rows += _estimated([cell], level_of, "level", cell.label, only)
    for a, b in contrasts(cells):
        rows += _estimated([a, b], difference, "contrast", f"{b.label} - {a.label}", only)
    return rows


def _shown(low: float, high: float) -> str:
    if not (np.isfinite(low) and np.isfinite(high)):
        return "no interval"
    return f"[{low:+.3f}, {high:+.3f}]"


def verdict(low: float, high: float) -> str:
    """What an interval says of a difference: positive, negative, no detectable effect, or
    no interval."""
    if not (np.isfinite(low) and np.isfinite(high)):
        return "no interval"
    if low > 0:
        return "positive"
    if high < 0:
        return "negative"
    return "no detectable effect"


NEAR_ZERO = 0.1  # a correlation this small leaves PPI's interval at the pilot's own


def correlation_said(rows: list[dict[str, Any]]) -> str:
    """The backends' correlation over the estimands in one sentence, and what it means."""
    found = [r["correlation"] for r in rows if np.isfinite(r["correlation"])]
    if not found:
        return "No correlation between the backends could be measured on the pilot's units."
    middle = float(np.median(found))
    line = (
        f"Correlation between the pilot backend and the surrogate on the pilot's units: "
        f"median {middle:+.2f} over {len(found)} estimands "
        f"(range {min(found):+.2f} to {max(found):+.2f})."
    )
    if abs(middle) < NEAR_ZERO:
        line += (
            " That is near zero: the surrogate barely predicts this backend, so the PPI "
            "intervals are about as wide as the pilot's own, and the pilot alone carries them."
        )
    return line


def ppi_html(rows: list[dict[str, Any]], notes: list[str]) -> str:
    """The contrasts side by side: offline-only, pilot-only and PPI, the verdict (which
    rests on the PPI interval), and the surrogate's measured bias."""
    shown = [
        {
            "contrast": r["cells"],
            "outcome": r["outcome"],
            "offline-only": _shown(r["offline_low"], r["offline_high"]),
            "pilot-only": _shown(r["pilot_low"], r["pilot_high"]),
            "PPI": f"{r['ppi']:+.3f} {_shown(r['ppi_low'], r['ppi_high'])}",
            "PPI, anytime": _shown(r["ppi_anytime_low"], r["ppi_anytime_high"]),
            "verdict (offline)": verdict(r["offline_low"], r["offline_high"]),
            "verdict (PPI)": verdict(r["ppi_low"], r["ppi_high"]),
            "surrogate bias": f"{r['bias']:+.3f} {_shown(r['bias_low'], r['bias_high'])}",
            "correlation": r["correlation"],
            "pilot units": r["pilot_n"],
        }
        for r in rows
        if r["kind"] == "contrast"
    ]
    said = "".join(f"<p>{html.escape(n)}</p>" for n in notes)
    if not rows:
        return said
    said += f"<p>{html.escape(correlation_said(rows))}</p>"
    first = rows[0]
    return (
        "<p>A pilot backend played a random share of the study's units (the same units in "
        "every cell, so contrasts stay paired); the offline surrogate played every unit. "
        "Each interval is for the <em>pilot backend's</em> value on this market's units, "
        "not for people. The verdict rests on the prediction-powered (PPI++) interval; the "
        "offline-only interval is the surrogate's own and says nothing about the pilot "
        "backend where the surrogate is biased (its bias is measured on the pilot's units, "
        f"surrogate minus pilot). Intervals: {html.escape(first['interval'])}; "
        f"{html.escape(first['validity'])}. Every level is in tables/ppi.csv.</p>"
        + said
        + table_html(shown)
    )
