"""The reputation benchmark's tables in the docs, written from the report's
``reputation_benchmark.csv`` (``recmarket.analysis.benchmark`` says how each number and
interval is made): the split gains the README shows, what each defence costs an honest
market and tolerates, the theory's predictions with the rule that reads each verdict, and the
defences ranked by menu and by worst case (``reputation_worst_case.csv``,
``recmarket.analysis.worst_case``)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from table_writers import Row, markdown, span

from recmarket.analysis.worst_case import EVERY

BASELINE = "shared window"
DUES = ("shared beta", *(f"shared beta (newcomer_low={n})" for n in (1, 3, 6)))
WRITERS = (
    "shared brs-filter",
    "shared credibility",
    "shared influence-limiter",
    "shared seeded-trust",
)


def _span(row: Row, column: str, digits: int, scale: float = 1.0) -> str:
    """An estimate and its interval, signed ("-" where the row has none)."""
    return span(row, column, digits, scale, True) if row[column] != "" else "-"


def _pp(row: Row, column: str) -> str:
    """A share's estimate and interval in percentage points."""
    return _span(row, column, 1, 100.0)


def _share(row: Row) -> str:
    return f"{float(row['attacker_share']):.2f}"


def split_gains(rows: list[Row]) -> str:
    """Each attack at its smallest share under the shared window: its gain over the honest
    cell, what gaming the records adds over its policy-only twin, the behaviour's own gain,
    and the largest share the shared window tolerates."""
    lines = []
    for attack in sorted({r["attack"] for r in rows} - {"null"}):
        r = _get(rows, attack, BASELINE)
        if r is None:
            continue
        lines.append(
            [
                attack,
                _share(r),
                _pp(r, "gain_top1"),
                _pp(r, "gain_over_policy"),
                _pp(r, "gain_policy"),
                _tolerated(r, "tolerated_share"),
            ]
        )
    header = [
        "attack (shared window)",
        "attackers' share",
        "gain in Top-1 share (pp)",
        "over its policy-only twin",
        "the policy's own",
        "tolerated share",
    ]
    return markdown(header, lines)


def _natural(text: str) -> list[Any]:
    """A sort key that orders the numbers in a name by value (wait 6 before wait 12)."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", text)]


def _tolerated(row: Row | None, column: str) -> str:
    if row is None or row[column] == "":
        return "-"
    return f"{float(row[column]):.2f}"


def defence_costs(rows: list[Row]) -> str:
    """Per defence: its cost in an honest market against the shared window, and, for each
    attack, the largest attackers' share up to which no gain shows over the honest cell /
    over the attack's policy-only twin (what it tolerates of the gaming itself)."""
    attacks = sorted({r["attack"] for r in rows} - {"null"})
    lines = []
    for defence in sorted({r["defence"] for r in rows}, key=_natural):
        mine = {r["attack"]: r for r in rows if r["defence"] == defence}
        any_row = next(iter(mine.values()))
        lines.append(
            [
                defence,
                _pp(any_row, "honest_loss_target_purchase"),
                _span(any_row, "honest_loss_regret", 3),
                _span(any_row, "honest_loss_entrant_wait", 1),
                *(
                    _tolerated(mine.get(a), "tolerated_share")
                    + " / "
                    + _tolerated(mine.get(a), "tolerated_share_over_policy")
                    for a in attacks
                ),
            ]
        )
    header = [
        "defence",
        "honest loss: target purchase (pp)",
        "regret",
        "entrant's wait (rounds)",
        *attacks,
    ]
    return markdown(header, lines)


def _get(rows: list[Row], attack: str, defence: str, share_rank: int = 0) -> Row | None:
    """The row of ``attack`` under ``defence`` at its ``share_rank``-th smallest share."""
    found = sorted(
        (r for r in rows if r["attack"] == attack and r["defence"] == defence),
        key=lambda r: float(r["attacker_share"]),
    )
    return found[share_rank] if len(found) > share_rank else None


def _apart(low_row: Row, high_row: Row, column: str) -> bool:
    """Whether ``low_row``'s interval lies wholly below ``high_row``'s."""
    return float(low_row[f"{column}_high"]) < float(high_row[f"{column}_low"])


def _excludes_zero(row: Row, column: str) -> int:
    """+1 where the interval lies above 0, -1 below, 0 where it covers 0."""
    low, high = float(row[f"{column}_low"]), float(row[f"{column}_high"])
    return 1 if low > 0 else -1 if high < 0 else 0


def _dues_cut_whitewashing(rows: list[Row]) -> tuple[str, str]:
    steps = [_get(rows, "whitewash", d) for d in DUES]
    if None in steps:
        return "-", "cannot tell (cells missing)"
    found = [r for r in steps if r is not None]
    measured = " -> ".join(_pp(r, "gain_top1") for r in found)
    points = [float(r["gain_top1"]) for r in found]
    if _apart(found[-1], found[0], "gain_top1") and points == sorted(points, reverse=True):
        return measured, "reproduces: falls at each step, the ends' intervals apart"
    if _apart(found[0], found[-1], "gain_top1"):
        return measured, "contradicts: the most dues leave a larger gain"
    return measured, "cannot tell: not monotone, or the ends' intervals overlap"


def _dues_cost_entrants(rows: list[Row]) -> tuple[str, str]:
    steps = [_get(rows, "whitewash", d) for d in DUES]
    if None in steps or any(r is None or r["honest_loss_entrant_wait"] == "" for r in steps):
        return "-", "cannot tell (no entrant cell)"
    found = [r for r in steps if r is not None]
    measured = " -> ".join(_span(r, "honest_loss_entrant_wait", 1) for r in found)
    if _apart(found[0], found[-1], "honest_loss_entrant_wait"):
        return measured, "reproduces: the most dues make the honest entrant wait longer"
    if _apart(found[-1], found[0], "honest_loss_entrant_wait"):
        return measured, "contradicts: the most dues shorten the entrant's wait"
    return measured, "cannot tell: the ends' intervals overlap"


def _sybil_survives_local_scope(rows: list[Row]) -> tuple[str, str]:
    local, none = _get(rows, "sybil", "local window"), _get(rows, "sybil", "no-rep (no records)")
    if local is None or none is None:
        return "-", "cannot tell (cells missing)"
    measured = f"local window {_pp(local, 'gain_top1')}; no records {_pp(none, 'gain_top1')}"
    survives = _excludes_zero(local, "gain_top1") == 1
    same = not (_apart(local, none, "gain_top1") or _apart(none, local, "gain_top1"))
    if survives and same:
        return measured, "reproduces: a gain under local records, as large as with none"
    if _excludes_zero(local, "gain_top1") == 0 and _excludes_zero(none, "gain_top1") == 1:
        return measured, "contradicts: local records take away the gain places give"
    return measured, "cannot tell"


def _filtering_tolerates_a_minority(rows: list[Row]) -> tuple[str, str]:
    small, large = (
        _get(rows, "flood", "shared brs-filter"),
        _get(rows, "flood", "shared brs-filter", 2),
    )
    if small is None or large is None:
        return "-", "cannot tell (cells missing)"
    measured = "; ".join(f"share {_share(r)}: {_pp(r, 'gain_top1')}" for r in (small, large))
    if _excludes_zero(small, "gain_top1") == 0 and _excludes_zero(large, "gain_top1") == 1:
        return measured, "reproduces: no gain shows from a minority, one from a majority"
    if _excludes_zero(small, "gain_top1") == 1:
        return measured, "contradicts: a gain shows at the smallest share"
    return measured, "cannot tell: no gain shows at either share"


def _robust_rules_cost_honest_writers(rows: list[Row]) -> tuple[str, str]:
    found = [_get(rows, "flood", d) for d in WRITERS]
    if None in found:
        return "-", "cannot tell (cells missing)"
    signs = [_excludes_zero(r, "honest_loss_target_purchase") for r in found if r is not None]
    measured = "; ".join(
        f"{d.removeprefix('shared ')} {_pp(r, 'honest_loss_target_purchase')}"
        for d, r in zip(WRITERS, found, strict=True)
        if r is not None
    )
    if all(s == 1 for s in signs):
        return measured, "reproduces: every writer-weighing defence costs honest markets"
    if any(s == -1 for s in signs):
        return measured, "contradicts: a defence serves honest users better than none"
    return measured, "cannot tell: no detectable cost for " + str(signs.count(0)) + " of 4"


PREDICTIONS: tuple[tuple[str, str, Callable[[list[Row]], tuple[str, str]]], ...] = (
    (
        "newcomer dues cut whitewashing's gain monotonically",
        "Friedman and Resnick 2001",
        _dues_cut_whitewashing,
    ),
    ("dues fall on honest entrants", "Friedman and Resnick 2001", _dues_cost_entrants),
    (
        "a Sybil gain survives local records, since it comes from shortlist places",
        "Cheng and Friedman 2005; this market",
        _sybil_survives_local_scope,
    ),
    (
        "filtering tolerates a minority of attacking writers, not a majority",
        "Whitby, Josang and Indulska 2004",
        _filtering_tolerates_a_minority,
    ),
    (
        "a robust rule discards honest information, at a cost to honest markets",
        "Resnick and Sami 2007",
        _robust_rules_cost_honest_writers,
    ),
)


def predictions(rows: list[Row]) -> str:
    """Each prediction of reputation theory beside what the benchmark measured (gains in
    Top-1 share and losses in pp, 95% intervals) and the verdict its rule reads."""
    lines = []
    for said, source, read in PREDICTIONS:
        measured, verdict = read(rows)
        lines.append([said, source, measured, verdict])
    return markdown(["prediction", "source", "measured", "verdict"], lines)


def composites(rows: list[Row]) -> str:
    """Per defence, each composite attack at its smallest share beside its parts at theirs:
    the gain over the policy-only twin (pp, 95% intervals), with "above" where the
    composite's interval lies wholly above each part's."""
    found = sorted({r["attack"] for r in rows if "+" in r["attack"]})
    lines = []
    for defence in sorted({r["defence"] for r in rows}, key=_natural):
        line = [defence]
        for composite in found:
            whole = _get(rows, composite, defence)
            parts = [_get(rows, part, defence) for part in composite.split("+")]
            if whole is None or any(p is None or p["gain_over_policy_low"] == "" for p in parts):
                line.append("-")
                continue
            said = " vs ".join(_pp(r, "gain_over_policy") for r in (whole, *parts) if r)
            above = all(_apart(p, whole, "gain_over_policy") for p in parts if p)
            line.append(said + (" (above)" if above else ""))
        lines.append(line)
    header = ["defence", *(f"{c} vs {' vs '.join(c.split('+'))}" for c in found)]
    return markdown(header, lines)


def _side(row: Row, side: str) -> str:
    """A side of the ranking: its gain over the policy (pp) and where it was found."""
    return f"{_pp(row, side)} ({row[f'{side}_attack']} at {float(row[f'{side}_share']):.2f})"


def worst_cases(rows: list[Row]) -> str:
    """Per defence, best first by its worst case over every searched family: its largest
    gain over the policy among the menu's cells and its worst case with the searches'
    winners (held-out seeds), each with its rank, and the smallest tolerated share over the
    families on each; then, for the families together and for each alone, the defences
    whose rank changes."""
    together = [r for r in rows if r["attack"] == EVERY]
    ordered = sorted(together, key=lambda r: (int(r["rank_worst"]), _natural(r["defence"])))
    lines = [
        [
            r["defence"],
            _side(r, "menu_worst"),
            r["rank_menu"],
            _side(r, "worst_case"),
            r["worst_case_source"],
            r["rank_worst"],
            _tolerated(r, "tolerated_share_menu") + " / " + _tolerated(r, "tolerated_share_worst"),
        ]
        for r in ordered
    ]
    header = [
        "defence",
        "menu: largest gain over the policy (pp)",
        "rank",
        "worst case (pp)",
        "found by",
        "rank",
        "tolerated share: menu / worst case",
    ]
    said = [
        f"- {family}: {_moved([r for r in rows if r['attack'] == family])}"
        for family in (EVERY, *sorted({r["attack"] for r in rows} - {EVERY}))
    ]
    return (
        markdown(header, lines)
        + "\nRanks that change (menu -> worst case):\n\n"
        + "\n".join(said)
        + "\n"
    )


def _moved(ranking: list[Row]) -> str:
    """The defences of one ranking whose rank changes, those whose worst case lies wholly
    above their menu's interval marked."""
    moved = sorted(
        (r for r in ranking if int(r["rank_change"]) != 0), key=lambda r: _natural(r["defence"])
    )
    said = [
        f"{r['defence']} {r['rank_menu']} -> {r['rank_worst']}"
        + (" (worst case above the menu's interval)" if r["worst_above_menu"] == "True" else "")
        for r in moved
    ]
    return "; ".join(said) or "none"


BENCHMARK_TABLES: dict[str, tuple[str, Callable[[list[Row]], str]]] = {
    "benchmark-split": ("reputation_benchmark", split_gains),
    "benchmark-defences": ("reputation_benchmark", defence_costs),
    "benchmark-predictions": ("reputation_benchmark", predictions),
    "benchmark-worst-case": ("reputation_worst_case", worst_cases),
    "benchmark-composites": ("reputation_benchmark", composites),
    "benchmark-majority": ("reputation_benchmark", defence_costs),
}
