"""Building the report from the run stores of one or more reproduce directories."""

from __future__ import annotations

import csv
import html
import multiprocessing
from collections import Counter, defaultdict
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt

from recmarket.analysis.attacks import attacker_levels
from recmarket.analysis.market_measures import market_measures
from recmarket.analysis.records import identical_groups, record_distribution
from recmarket.conditions import condition
from recmarket.market.access import analytic_access
from recmarket.report.data import Cell, MissingCell, load_cells
from recmarket.report.figures import FIGURES
from recmarket.report.html import figure_html, page, table_html
from recmarket.report.models import models_section
from recmarket.report.paper import compare
from recmarket.report.paper import summary as summary_line
from recmarket.run.lifeline import die_with_parent
from recmarket.run.store import RunStore
from recmarket.run.threads import pin_native_threads

EXPLORER_PER_DOMAIN = 3  # episodes per domain and run whose role calls the page embeds


def write_table(rows: list[dict[str, Any]], stem: Path) -> None:
    if not rows:
        return
    with stem.with_suffix(".csv").open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    lines = ["| " + " | ".join(rows[0]) + " |", "|" + "---|" * len(rows[0])]
    lines += [
        "| " + " | ".join(f"{v:.4f}" if isinstance(v, float) else str(v) for v in r.values()) + " |"
        for r in rows
    ]
    stem.with_suffix(".md").write_text("\n".join(lines) + "\n")


def cell_rows(cells: dict[str, dict[str, Cell]]) -> list[dict[str, Any]]:
    rows = []
    for experiment, members in cells.items():
        for name, cell in members.items():
            rows.append(
                {"experiment": experiment, "cell": name, "replicates": cell.pooling}
                | cell.summary
                | market_measures(cell.config, cell.rows)
                | attacker_levels(cell.config, cell.rows)
            )
    return rows


def access_rows(cells: dict[str, dict[str, Cell]]) -> list[dict[str, Any]]:
    """Appendix A.2 beside the empirical forced-inclusion rates of the opening cells."""
    opening = cells.get("market-opening", {})
    rows = []
    for name, cell in opening.items():
        market = cell.config.market
        pc, ua = analytic_access(market.n_platforms, market.rho, market.p_hit)
        rows.append(
            {
                "cell": name,
                "analytic": ua if condition(cell.config.condition).user_agent else pc,
                "forced_inclusion_rate": cell.macro["forced_inclusion_rate"],
                "target_present": cell.macro["target_present"],
            }
        )
    return rows


def explorer(cells: dict[str, dict[str, Cell]]) -> list[dict[str, Any]]:
    """The first episodes of every domain of every run, each with all of its role calls
    and the experiments and cells that use its run."""
    by_run: dict[Path, dict[str, Any]] = {}
    for experiment, members in cells.items():
        for name, cell in members.items():
            entry = by_run.setdefault(cell.run_dir, {"cell": cell, "uses": []})
            entry["uses"].append({"experiment": experiment, "cell": name})
    episodes = []
    for run_dir, entry in by_run.items():
        taken: Counter[str] = Counter()
        with RunStore.read(run_dir) as store:
            for row in entry["cell"].rows:
                if taken[row["domain"]] < EXPLORER_PER_DOMAIN:
                    taken[row["domain"]] += 1
                    calls = list(store.calls(row["domain"], row["ord"]))
                    episodes.append(_explored(row, calls, entry["uses"]))
    return episodes


def _explored(row: dict[str, Any], calls: list[Any], uses: list[dict[str, str]]) -> dict[str, Any]:
    answered = (c.output for c in calls if c.role == "query" and c.output)
    query = next((out.get("query_text", "") for out in answered), "")
    if row["failed_role"]:
        outcome = "failed"
    elif row["target_purchased"]:
        outcome = "target purchase"
    else:
        outcome = "off-target purchase" if row["any_purchase"] else "no purchase"
    return {
        "episode_id": row["episode_id"],
        "domain": row["domain"],
        "condition": row["condition"],
        "outcome": outcome,
        "title": query,
        "uses": uses,
        "calls": [{"role": c.role, "input": c.input, "output": c.output} for c in calls],
    }


def record_rows(cells: dict[str, dict[str, Cell]]) -> list[dict[str, Any]]:
    """Per reputation cell, the records each platform ended with in each memory set."""
    return [
        {
            "experiment": experiment,
            "cell": name,
            "scope": cell.config.reputation_scope,
            "mechanism": cell.config.market.reputation_in_use.mechanism,
            **record_distribution(cell.rows, cell.config),
        }
        for experiment, members in cells.items()
        for name, cell in members.items()
        if condition(cell.config.condition).reputation
    ]


def identical_notes(cells: dict[str, dict[str, Cell]]) -> list[str]:
    """One sentence per group of cells of one experiment whose episodes are identical, with
    the reason where the records show it."""
    notes = []
    for experiment, members in cells.items():
        for names in identical_groups({n: c.rows for n, c in members.items()}):
            group = [members[n] for n in names]
            said = f"{experiment}: {' and '.join(names)} are identical"
            window = group[0].config.market.memory_window
            most = max(
                (record_distribution(c.rows, c.config).get("max", 0) for c in group), default=0
            )
            if all(condition(c.config.condition).reputation for c in group) and most <= window:
                said += (
                    f": the mechanism never acted (no platform's history in any memory set "
                    f"passed W = {window} records; the most was {most})"
                )
            else:
                said += ": their settings never changed an episode"
            notes.append(said)
    return notes


@dataclass(frozen=True)
class BuiltReport:
    path: Path  # report.html
    comparison: list[dict[str, Any]]  # the paper's numbers beside ours
    notes: list[str]  # cells that could not show their treatment


def _drawn(stem: str, draw: Any, cells: list[Cell], figures: Path, tables: Path) -> str:
    """One figure drawn and saved (PNG, PDF, its table): its HTML, or why it is missing."""
    try:
        fig, rows = draw(cells)
    except MissingCell as missing:  # a custom spec under a built-in figure
        return f"<p>{stem}: not drawn, {html.escape(str(missing))}</p>"
    for suffix in (".png", ".pdf"):
        fig.savefig(figures / f"{stem}{suffix}", dpi=130, bbox_inches="tight")
    plt.close(fig)
    write_table(rows, tables / stem)
    title = draw.__doc__.splitlines()[0] if draw.__doc__ else stem
    return figure_html(title, figures / f"{stem}.png", rows)


# The cells of the report being built: forked section workers read them from here rather
# than receiving them (a whole plan's episode rows would be pickled once per section).
_cells: dict[str, dict[str, Cell]] = {}


def _by_figure() -> dict[str, list[Cell]]:
    by_figure: dict[str, list[Cell]] = defaultdict(list)
    for members in _cells.values():
        for cell in members.values():
            by_figure[cell.figure].append(cell)
    return by_figure


def _figure(kind: str, stem: str, draw: Any, figures: Path, tables: Path) -> str:
    return _drawn(stem, draw, _by_figure()[kind], figures, tables)


def _on_cells(section: Any) -> Any:
    return section(_cells)


def _section_worker_start() -> None:
    """A section worker runs one native thread and ends with its parent (run/lifeline.py)."""
    die_with_parent()
    pin_native_threads()


def _sections(tasks: list[tuple[Any, tuple]], workers: int) -> list[Any]:
    """The report's sections, each a (function, arguments), in order. With several workers
    they are computed in forked processes, one native thread each: the figures' bootstraps
    and drawing were most of a reproduce's serial time."""
    if workers <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        return [task(*args) for task, args in tasks]
    fork = multiprocessing.get_context("fork")
    size = min(workers, len(tasks))
    with ProcessPoolExecutor(size, mp_context=fork, initializer=_section_worker_start) as pool:
        futures = [pool.submit(task, *args) for task, args in tasks]
        return [future.result() for future in futures]


def build_report(out_dirs: list[Path], target: Path, workers: int = 1) -> BuiltReport:
    """Write figures (PNG, PDF), tables (CSV, Markdown) and report.html under ``target``,
    the sections computed in ``workers`` processes."""
    global _cells
    _cells = cells = load_cells(out_dirs)
    figures, tables = target / "figures", target / "tables"
    figures.mkdir(parents=True, exist_ok=True)
    tables.mkdir(parents=True, exist_ok=True)
    by_figure = _by_figure()
    drawn = [
        (_figure, (kind, stem, draw, figures, tables))
        for kind, figures_of_kind in FIGURES.items()
        for stem, draw in (figures_of_kind if by_figure[kind] else ())
    ]
    rest = [(_on_cells, (section,)) for section in SECTIONS]
    try:
        results = _sections(rest + drawn, workers)
    finally:
        _cells = {}
    access, comparison, records, notes, every, episodes, models = results[: len(rest)]
    body = []
    write_table(access, tables / "access_check")
    if access:
        body.append(
            "<h2>Appendix A.2: analytic vs empirical forced inclusion</h2>" + table_html(access)
        )
    body += results[len(rest) :]
    write_table(comparison, tables / "paper_comparison")
    body.append(
        "<h2>The paper's numbers beside this run's</h2><p>"
        + html.escape(summary_line(comparison))
        + ". Each contrast has a 95% interval, made as its method column says: the two-stage "
        "bootstrap (seeds, then users or requests within each seed and domain) where each "
        "seed and domain holds units to resample, and a t-interval over seeds, with its "
        "degrees of freedom, where it holds one (a shared history, a learning market). A "
        "difference or ratio is opposite, or agrees, only when its interval excludes no "
        "change, and is otherwise no detectable effect; it agrees in size only when the "
        "paper's value lies inside our interval, and in sign alone otherwise (ours/paper "
        "gives the size). A magnitude agrees in size when its whole interval lies within the "
        "paper's bound; a spread, when its interval less its noise bias does. "
        "Kind says what produces a contrast here: the protocol (for any ranker), a named "
        "design assumption of the offline agents, or neither (emergent). A level is a single "
        "cell's value, set beside the paper's without a verdict. Which levels compare: "
        "access (target present, forced inclusion, copies in the pool) follows from the "
        "protocol and may be read against the paper's; the judgement levels (shortlisted, "
        "Top-1, purchased, label shares) are the offline model's, about 30% target purchase "
        "on the bundled demo and on the real Office and Fashion slices alike (docs/data.md), "
        "against the paper's 45-50% with LLM agents: compare their contrasts, not their "
        "levels.</p>" + table_html(comparison)
    )
    write_table(records, tables / "records_per_history")
    if records or notes:
        body.append(
            "<h2>Could each reputation treatment act?</h2><p>Records each platform ended with "
            "in each memory set (a user, a profile or a whole domain, per seed): a mechanism "
            "that reads more than the last W records differs from the window only where a "
            "history passed W.</p>"
            + "".join(f"<p><strong>{html.escape(n)}.</strong></p>" for n in notes)
            + (table_html(records) if records else "")
        )
    if models:
        body.append(models)
    write_table(every, tables / "cells")
    body.append("<h2>Every cell (macro over domains)</h2>" + table_html(every))
    summary = (
        f"{sum(len(m) for m in cells.values())} cells of {len(cells)} experiments, "
        f"{sum(r['episodes'] for r in every):,} episodes; built from {len(out_dirs)} "
        "reproduce directories."
    )
    note = (
        f"Role calls are embedded for the first {EXPLORER_PER_DOMAIN} episodes of each "
        "domain in every run; `recmarket show RUN_DIR --episode ID` opens any episode."
    )
    path = target / "report.html"
    path.write_text(page(summary, "\n".join(body), episodes, note), encoding="utf-8")
    return BuiltReport(path, comparison, notes)


# The sections besides the figures, in the order build_report unpacks them.
SECTIONS = (
    access_rows,
    compare,
    record_rows,
    identical_notes,
    cell_rows,
    explorer,
    models_section,
)
