"""The paper's reported numbers beside this project's measurements of them.

``paper_numbers.toml`` holds every number the paper reports in its results (Section 4,
Figures 3-12, Table 2, A.2, A.5, A.6, A.8), where it is reported, how it is measured here
and, for a contrast, what produces it (protocol, a named design assumption, or nothing in
particular: emergent). ``compare`` measures each on the cells a reproduce ran, with a 95%
interval over seeds and clusters, and gives a verdict only where the interval supports
one. Nothing here judges the simulator by the paper or the paper by the simulator: the
table reports both, whatever they say.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from recmarket.analysis.bootstrap import (
    DRAWS,
    Interval,
    Metric,
    UnpairedCells,
    difference,
    interval,
    level_of,
    point,
    quotient,
    scaled,
    spread,
)
from recmarket.analysis.market_measures import MARKET_MEASURES
from recmarket.experiments.units import coarsest, memory_unit
from recmarket.report.chain_table import Chain, chain_columns, localrep_links
from recmarket.report.data import Cell
from recmarket.report.paper_arms import PaperNumber, arms_of, paper_numbers, unpaired

STATISTICS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "level": level_of,
    "difference": difference,
    "magnitude": difference,
    "ratio": quotient,
    "spread": spread,
}


def metric_of(name: str, params: Mapping[str, Any] | None = None, cfg: Any = None) -> Metric:
    """The Metric of a measure shown at "paper", at ``params``, as the paper reports it (a
    share as a percent); an unknown name fails with the known ones."""
    measure = MARKET_MEASURES.get(name)
    made = measure.make(cfg, MARKET_MEASURES.params(name, params or {}))
    return scaled(made, 100.0) if measure.share else made


def metric_value(cell: Cell, name: str, params: Mapping[str, Any] | None = None) -> float:
    """A cell's value of one measure as the paper reports it, without an interval."""
    return point(cell.rows, metric_of(name, params, cell.config))


def measured(
    number: PaperNumber, cells: dict[str, dict[str, Cell]], *, draws: int = DRAWS
) -> Interval | None:
    """This project's value of the number with its interval, or None where the cells were
    not run (or not all of an arm's seeds: arms that do not hold the same episodes, such as
    a cell some of whose seeds a stopped reproduce never finished, are not compared). A
    contrast's arms share their episodes, so the same seeds and units are resampled in
    each; the unit is the coarsest any arm depends on."""
    return measured_on(number, arms_of(number, cells), draws=draws)


def measured_on(
    number: PaperNumber, found: list[Cell] | None, *, draws: int = DRAWS
) -> Interval | None:
    """``measured`` on the number's arms as ``arms_of`` found them."""
    if found is None or number.measure is None:
        return None
    try:
        return interval(
            [a.rows for a in found],
            metric_of(number.measure, number.params, found[0].config),
            STATISTICS[number.statistic],
            coarsest([memory_unit(a.config) for a in found]),
            draws=draws,
        )
    except UnpairedCells:
        return None


def _judged_bounds(number: PaperNumber, value: Interval) -> tuple[float, float]:
    """The interval a verdict reads: a spread's, less the noise bias its draws measure
    (the largest minus the smallest of noisy values exceeds that of the true ones)."""
    if number.statistic == "spread":
        return value.low - value.bias, value.high - value.bias
    return value.low, value.high


def verdict(number: PaperNumber, value: Interval | None) -> str:
    """What the interval supports about the paper's statement. An interval that excludes
    the paper's value (or, where the paper gives an interval, lies beside it) says so first,
    whatever else holds, with whether our effect has the paper's sign, the other sign or
    none detectable: an interval that rules the paper's value out is never read as mere
    absence of evidence. A contrast whose interval holds the paper's value agrees in size
    where it excludes no effect, and shows no detectable effect where it holds both. A
    bound (a magnitude, a spread) is judged by where our interval lies against it
    (``size``)."""
    if number.experiment is None:
        return "no counterpart"
    if value is None or np.isnan(value.estimate):
        return "not run"
    if number.statistic == "level":
        return "level"
    if np.isnan(value.low):
        return "no interval"
    where = size(number, value)
    if number.statistic in ("magnitude", "spread"):
        beyond = "larger" if number.statistic == "magnitude" else "wider"
        return {"within the bound": "agrees in size", "beyond the bound": beyond}.get(
            where, "inconclusive"
        )
    null = 1.0 if number.statistic == "ratio" else 0.0
    if where in ("inside", "intervals overlap"):
        return "agrees in size" if value.excludes(null) else "no detectable effect"
    if not value.excludes(null):
        return EXCLUDES_NONE
    if (value.estimate - null) * (number.paper - null) <= 0:
        return EXCLUDES_OPPOSITE
    return EXCLUDES_SAME_SIGN


NOT_PAIRED = "not paired: its arms were cut to other requests (a scaled run)"
NOT_MEASURED = ("not run", "no counterpart", NOT_PAIRED)  # verdicts of no measurement
EXCLUDES_NONE = "excludes the paper's value: no detectable effect"
EXCLUDES_OPPOSITE = "excludes the paper's value: opposite sign"
EXCLUDES_SAME_SIGN = "excludes the paper's value: same sign, other size"


def size(number: PaperNumber, value: Interval | None) -> str:
    """Where the paper's value lies against our interval: inside it (or, where the paper
    gives an interval, whether the two overlap), or which side ours is on; for a bound (a
    magnitude, a spread), whether our interval lies within it."""
    if value is None or number.experiment is None or np.isnan(value.low):
        return ""
    low, high = _judged_bounds(number, value)
    if number.statistic in ("magnitude", "spread"):
        bound = number.tolerance if number.statistic == "magnitude" else number.paper
        floor = -bound if number.statistic == "magnitude" else -np.inf
        if floor <= low and high <= bound:
            return "within the bound"
        beyond = low > bound or high < floor
        return "beyond the bound" if beyond else "across the bound"
    if number.paper_interval is not None:  # the two intervals overlap, or ours is beside
        paper_low, paper_high = number.paper_interval
        if low <= paper_high and paper_low <= high:
            return "intervals overlap"
        return "ours below" if high < paper_low else "ours above"
    return (
        "inside"
        if low <= number.paper <= high
        else "ours below"
        if high < number.paper
        else "ours above"
    )


def interval_method(number: PaperNumber, value: Interval | None) -> str:
    """How the interval was made, with a spread's noise bias where the verdict removed it."""
    if value is None:
        return ""
    if number.statistic == "spread" and not np.isnan(value.low):
        return f"{value.method}; noise bias {value.bias:+.2f} taken off before judging"
    return value.method


def _params(number: PaperNumber) -> str:
    """A number's measure parameters as a table shows them ("policy=strict, label=high")."""
    return ", ".join(f"{k}={v}" for k, v in number.params.items())


def _shown(x: float | None) -> str:
    return "" if x is None or np.isnan(x) else f"{round(x, 2):g}"


def _ratio(number: PaperNumber, value: Interval | None) -> str:
    """Ours over the paper's, where the paper gives a number other than zero."""
    if value is None or number.paper == 0 or np.isnan(value.estimate):
        return ""
    return _shown(value.estimate / number.paper)


def chain_verdict(number: PaperNumber, verdict_given: str, found: Chain | None) -> str:
    """A LocalRep target-purchase verdict counts as agreement only where the target's Top-1
    moves the same way (the chain's middle link): otherwise it is "chain broken"."""
    if found is None or number.measure != "target_purchase":
        return verdict_given
    if verdict_given != "agrees in size":  # an excluded paper value is said as it is
        return verdict_given
    top1 = found.links["target_top1"]
    return (
        verdict_given
        if top1.low * number.paper > 0 and top1.high * number.paper > 0
        else ("chain broken")
    )


def compare(cells: dict[str, dict[str, Cell]], *, draws: int = DRAWS) -> list[dict[str, Any]]:
    """One row per paper number: where, what, what produces it, the paper's value (and its
    interval, where it gives one), ours with its 95% interval and how that was made, ours
    over the paper's, where the paper's value lies against our interval, the verdict the
    interval supports and, for a LocalRep contrast, the chain's links (target shortlisted,
    Top-1, the moved Top-1s that went to the target) and where it breaks."""
    rows = []
    chains: dict[tuple[int, int], Chain | None] = {}
    for number in paper_numbers():
        arms = arms_of(number, cells)
        value = measured_on(number, arms, draws=draws)
        links = localrep_links(arms, chains, draws=draws) if arms and value else None
        judged = NOT_PAIRED if arms is None and unpaired(number, cells) else verdict(number, value)
        rows.append(
            {
                "section": number.section,
                "what": number.what,
                "kind": number.kind or "",
                "measure": number.measure or "",
                "params": _params(number),
                "statistic": number.statistic,
                "paper": ("~" if number.about else "") + f"{number.paper:g}",
                "paper_interval": ""
                if number.paper_interval is None
                else "[{:g}, {:g}]".format(*number.paper_interval),
                "ours": _shown(value.estimate if value else None),
                "low": _shown(value.low if value else None),
                "high": _shown(value.high if value else None),
                "ratio": _ratio(number, value),
                "size": size(number, value),
                "verdict": chain_verdict(number, judged, links),
                "seeds": value.seeds if value else "",
                "design": value.design if value else "",
                "df": "" if value is None or value.df is None else value.df,
                "interval_method": interval_method(number, value),
                **chain_columns(links),
                "basis": number.basis,
                "source": number.source,
            }
        )
    return rows


SAID = {
    "agrees in size": "agree in sign and size",
    EXCLUDES_SAME_SIGN: "exclude the paper's value with its sign",
    EXCLUDES_OPPOSITE: "exclude the paper's value with the other sign",
    EXCLUDES_NONE: "exclude the paper's value with no detectable effect",
}
VERDICTS = (
    "agrees in size",
    EXCLUDES_SAME_SIGN,
    EXCLUDES_OPPOSITE,
    EXCLUDES_NONE,
    "chain broken",
    "no detectable effect",
    "larger",
    "wider",
    "inconclusive",
    "no interval",
)


def summary(rows: list[dict[str, Any]]) -> str:
    """The verdicts counted apart by what produces each contrast, in one line; agreement in
    sign alone is counted apart from agreement in size."""
    judged = [r for r in rows if r["kind"] and r["verdict"] in VERDICTS]
    if not judged:
        return "paper comparison: no contrast measured"
    seeds = max(int(r["seeds"]) for r in judged)
    parts = []
    for kind in ("emergent", "design", "protocol"):
        counts = Counter(r["verdict"] for r in judged if r["kind"] == kind)
        if counts:
            said = ", ".join(f"{counts[v]} {SAID.get(v, v)}" for v in VERDICTS if counts[v])
            parts.append(f"{kind}: {said}")
    return f"paper comparison ({seeds} seed{'s' * (seeds > 1)}): " + "; ".join(parts)
