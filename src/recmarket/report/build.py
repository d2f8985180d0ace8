"""Building the report from the run stores of one or more reproduce directories."""

from __future__ import annotations

import html
import math
import multiprocessing
from collections import defaultdict
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt

from recmarket.analysis.bootstrap import UnpairedCells
from recmarket.analysis.market_measures import measure_rows
from recmarket.files import replaced, sweep_temporaries, write_text_whole
from recmarket.locks import BRIEF_WAIT, WriterLock
from recmarket.report.cell_tables import access_rows, cell_rows, identical_notes, record_rows
from recmarket.report.chain_table import chain_html, chain_rows
from recmarket.report.data import Cell, MissingCell, load_cells
from recmarket.report.explorer import Explored, explorer, policy_colours
from recmarket.report.figures import FIGURES
from recmarket.report.html import figure_html, page, table_html
from recmarket.report.layout import (
    CLOSING,
    PAPER_SECTIONS,
    Entry,
    caption,
    cited_stem,
    nav,
    row_anchor,
)
from recmarket.report.models import models_section
from recmarket.report.oracle_table import oracle_html, oracle_rows
from recmarket.report.paper import compare
from recmarket.report.paper import summary as summary_line
from recmarket.report.people import people_section
from recmarket.report.pilot_data import read_piloted
from recmarket.report.pilot_summary import pilot_facts, pilot_findings
from recmarket.report.ppi_table import ppi_html, ppi_rows
from recmarket.report.summary import RunSummary, run_summary
from recmarket.report.tables import ReportIncomplete, write_table
from recmarket.report.ticks import untangle
from recmarket.run.lifeline import die_with_parent
from recmarket.run.threads import pin_native_threads


@dataclass(frozen=True)
class BuiltReport:
    """What building a report gives back: the page's path, the paper comparison, the notes
    and the summary."""

    path: Path  # report.html
    comparison: list[dict[str, Any]]  # the paper's numbers beside ours
    notes: list[str]  # cells that could not show their treatment
    summary: RunSummary  # the first screen


@dataclass(frozen=True)
class DrawnFigure:
    """A figure as a section worker leaves it: saved as PNG and PDF, its table written."""

    stem: str
    title: str  # a whole sentence
    rows: list[dict[str, Any]]  # its table, empty rows left out
    omitted: int  # rows left out for having no episodes
    missing: str = ""  # why it was not drawn (its cells are not in the run)


def heading(draw: Any) -> str:
    """A figure's heading: the first paragraph of its drawing function's docstring."""
    doc = (draw.__doc__ or "").strip().split("\n\n")[0]
    return " ".join(doc.split())


def is_empty(row: dict[str, Any]) -> bool:
    """A table row for something no episode reached: no episodes, or no estimate (a row
    with an estimate but no interval is not empty: it says so in its interval column)."""
    estimate = row.get("estimate", 0.0)
    return (
        row.get("episodes") == 0
        or estimate == ""
        or (isinstance(estimate, float) and math.isnan(estimate))
    )


def drawn_figure(draw: Any, cells: list[Cell]) -> Any:
    """A figure and its rows as the report saves them: drawn, its tick labels untangled."""
    fig, rows = draw(cells)
    untangle(fig)
    return fig, rows


def _drawn(stem: str, draw: Any, cells: list[Cell], figures: Path, tables: Path) -> DrawnFigure:
    """One figure drawn and saved (PNG, PDF, its table without empty rows)."""
    try:
        fig, rows = drawn_figure(draw, cells)
    except (MissingCell, UnpairedCells) as missing:  # a custom spec under a built-in
        # figure, or a cell it pairs left out unfinished while another answers its settings
        return DrawnFigure(stem, heading(draw), [], 0, str(missing))
    for suffix in (".png", ".pdf"):
        with replaced(figures / f"{stem}{suffix}") as temporary:
            fig.savefig(temporary, dpi=130, bbox_inches="tight")
    plt.close(fig)
    kept = [r for r in rows if not is_empty(r)]
    write_table(kept, tables / stem)
    return DrawnFigure(stem, heading(draw), kept, len(rows) - len(kept))


def _figure_html(drawn: DrawnFigure, figures: Path, comparison: list[dict[str, Any]]) -> str:
    if drawn.missing:
        return (
            f'<figure id="{drawn.stem}"><h3>{html.escape(drawn.title)}</h3><p>{drawn.stem}: not '
            f"drawn, {html.escape(drawn.missing)}</p></figure>"
        )
    note = (
        f"{drawn.omitted} table rows with no episodes (rounds no user reached, say) are left out."
        if drawn.omitted
        else ""
    )
    return figure_html(
        drawn.stem,
        drawn.title,
        figures / f"{drawn.stem}.png",
        drawn.rows,
        caption(drawn.stem, comparison),
        note,
    )


Cells = dict[str, dict[str, Cell]]
# A section worker's cells, set once by its initializer. The worker is forked, so they are
# inherited, never pickled (a whole plan's episode rows would be sent once per section);
# the parent process keeps none.
_worker_cells: Cells = {}


def _by_figure(cells: Cells) -> dict[str, list[Cell]]:
    by_figure: dict[str, list[Cell]] = defaultdict(list)
    for members in cells.values():
        for cell in members.values():
            by_figure[cell.figure].append(cell)
    return by_figure


def _figure(
    cells: Cells, kind: str, stem: str, draw: Any, figures: Path, tables: Path
) -> DrawnFigure:
    return _drawn(stem, draw, _by_figure(cells)[kind], figures, tables)


def _on_cells(cells: Cells, section: Any) -> Any:
    return section(cells)


def _section_worker_start(cells: Cells) -> None:
    """A section worker holds the report's cells, runs one native thread and ends with its
    parent (run/lifeline.py)."""
    global _worker_cells
    _worker_cells = cells
    die_with_parent()
    pin_native_threads()


def _in_worker(task: Any, *args: Any) -> Any:
    return task(_worker_cells, *args)


def _sections(cells: Cells, tasks: list[tuple[Any, tuple]], workers: int) -> list[Any]:
    """The report's sections, each a (function of the cells, arguments), in order. With
    several workers they are computed in forked processes, one native thread each: the
    figures' bootstraps and drawing were most of a reproduce's serial time."""
    if workers <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        return [task(cells, *args) for task, args in tasks]
    fork = multiprocessing.get_context("fork")
    size = min(workers, len(tasks))
    with ProcessPoolExecutor(
        size, mp_context=fork, initializer=_section_worker_start, initargs=(cells,)
    ) as pool:
        futures = [pool.submit(_in_worker, task, *args) for task, args in tasks]
        return [future.result() for future in futures]


def build_report(out_dirs: list[Path], target: Path, workers: int = 1) -> BuiltReport:
    """Write figures (PNG, PDF), tables (CSV, Markdown) and report.html under ``target``,
    the sections computed in ``workers`` processes. One report is written into ``target``
    at a time (a second waits under its writer lock), and every file is replaced whole; a
    file that cannot be written stops the report with ``ReportIncomplete`` naming it. The
    runs are read first, so a refused directory leaves nothing behind."""
    cells = load_cells(out_dirs)
    target.mkdir(parents=True, exist_ok=True)
    with WriterLock(target, wait=BRIEF_WAIT):
        sweep_temporaries(target)  # a killed report's
        try:
            return _build_report(out_dirs, cells, target, workers)
        except OSError as exc:
            raise ReportIncomplete(
                f"{exc}; the report in {target} is incomplete (each file in it is whole, "
                "the earlier one or the new one): free the space or fix the permission and "
                "run it again"
            ) from exc


def _build_report(out_dirs: list[Path], cells: Cells, target: Path, workers: int) -> BuiltReport:
    figures, tables = target / "figures", target / "tables"
    figures.mkdir(parents=True, exist_ok=True)
    tables.mkdir(parents=True, exist_ok=True)
    by_figure = _by_figure(cells)
    figure_tasks = [
        (_figure, (kind, stem, draw, figures, tables))
        for kind, figures_of_kind in FIGURES.items()
        for stem, draw in (figures_of_kind if by_figure[kind] else ())
    ]
    rest = [(_on_cells, (compute,)) for compute in Sections.computers()]
    results = _sections(cells, rest + figure_tasks, workers)
    done = Sections(*results[: len(rest)])
    drawn_figures: list[DrawnFigure] = results[len(rest) :]
    parts: dict[str, str] = {
        d.stem: _figure_html(d, figures, done.comparison) for d in drawn_figures
    }
    write_table(done.access, tables / "access_check")
    if done.access:
        parts["access_check"] = (
            '<figure id="access_check"><h3>Appendix A.2: the analytic chance that the target '
            "is present beside the empirical forced-inclusion rate of each opening cell.</h3>"
            + caption("access_check", done.comparison)
            + table_html(done.access)
            + "</figure>"
        )
    write_table(done.chains, tables / "accountability_chain")
    if done.chains:
        parts["accountability_chain"] = chain_html(done.chains)
    write_table(done.oracles, tables / "oracle_contrasts")
    if done.oracles:
        parts["oracle_contrasts"] = oracle_html(done.oracles)
    write_table(done.comparison, tables / "paper_comparison")
    write_table(done.records, tables / "records_per_history")
    write_table(done.cells, tables / "cells")
    measures = measure_rows()
    write_table(measures, tables / "measures")
    piloted, pilot_notes = read_piloted(out_dirs)
    ppi = ppi_rows(piloted)
    write_table(ppi, tables / "ppi")
    drawn = set(parts) - {d.stem for d in drawn_figures if d.missing}
    closing = {
        "comparison": comparison_html(done.comparison, drawn),
        "records": records_html(done.records, done.notes),
        "models": done.models,
        "people": done.people,
        "ppi": ppi_html(ppi, pilot_notes),
        "cells": "<p>Macro over domains.</p>"
        + table_html(done.cells)
        + "<p>The market measures in this table, and where their code comes from.</p>"
        + table_html(measures),
    }
    summary = run_summary(
        cells, done.comparison, len(out_dirs), pilot_facts(out_dirs, ppi), pilot_findings(ppi)
    )
    titles = {d.stem: d.title for d in drawn_figures} | {
        "access_check": "Appendix A.2 table.",
        "accountability_chain": "The accountability chain of done.cells LocalRep contrast.",
        "oracle_contrasts": "The oracle beside each mechanism, paired.",
    }
    contents = [Entry("summary", "Summary")]
    body = []
    for section in PAPER_SECTIONS:
        stems = [stem for stem in section.stems if stem in parts]
        shown = [parts[stem] for stem in stems]
        if shown:
            figures_in = tuple(Entry(stem, titles[stem]) for stem in stems)
            contents.append(Entry(section.anchor, section.title, figures_in))
            body.append(
                f'<section id="{section.anchor}"><h2>{html.escape(section.title)}</h2>'
                + "".join(shown)
                + "</section>"
            )
    for anchor, title in CLOSING:
        if anchor == "explorer" or closing.get(anchor):
            contents.append(Entry(anchor, title))
        if closing.get(anchor):
            body.append(
                f'<section id="{anchor}"><h2>{html.escape(title)}</h2>{closing[anchor]}</section>'
            )
    path = target / "report.html"
    first = summary.html() + nav(contents)
    write_text_whole(
        path,
        page(
            first, "\n".join(body), done.episodes.episodes, done.episodes.note(), policy_colours()
        ),
    )
    return BuiltReport(path, done.comparison, done.notes, summary)


def comparison_html(comparison: list[dict[str, Any]], drawn: set[str]) -> str:
    """The paper comparison: each row under its own anchor, its section linked to the
    figure or table behind it where the report has one."""
    stems = [cited_stem(r["section"]) for r in comparison]
    return (
        "<p>"
        + html.escape(summary_line(comparison))
        + ". "
        + COMPARISON_NOTE
        + "</p>"
        + table_html(
            comparison,
            ids=[row_anchor(i) for i in range(len(comparison))],
            links=[f"#{s}" if s in drawn else None for s in stems],
        )
    )


def records_html(records: list[dict[str, Any]], notes: list[str]) -> str:
    """The records section: what each platform's records came to in each memory set, with
    the notes on cells that could not show their treatment."""
    if not records and not notes:
        return ""
    return (
        "<p>Records each platform ended with in each memory set (a user, a profile or a "
        "whole domain, per seed): a mechanism that reads more than the last W records "
        "differs from the window only where a history passed W.</p>"
        + "".join(f"<p><strong>{html.escape(n)}.</strong></p>" for n in notes)
        + (table_html(records) if records else "")
    )


COMPARISON_NOTE = (
    "Each contrast has a 95% interval, made as its method column says: the two-stage "
    "bootstrap (seeds, then users or requests within each seed and domain) where each "
    "seed and domain holds units to resample, and a t-interval over seeds, with its "
    "degrees of freedom, where it holds one (a shared history, a learning market). A "
    "difference or ratio whose interval excludes the paper's value says so first, with "
    "whether ours has the paper's sign, the other or none detectable; one whose interval "
    "holds the paper's value agrees in size where it excludes no change, and is no "
    "detectable effect where it holds both (ours/paper gives the size). A magnitude "
    "agrees in size when its whole interval lies within the paper's bound; a spread, "
    "when its interval less its noise bias does. "
    "Kind says what produces a contrast here: the protocol (for any ranker), a named "
    "design assumption of the offline agents, or neither (emergent). A level is a single "
    "cell's value, set beside the paper's without a verdict. Which levels compare: "
    "access (target present, forced inclusion, copies in the pool) follows from the "
    "protocol and may be read against the paper's; the judgement levels (shortlisted, "
    "Top-1, purchased, label shares) are the offline model's, about 30% target purchase "
    "on the bundled demo and on the real Office and Fashion slices alike (docs/data.md), "
    "against the paper's 45-50% with LLM agents: compare their contrasts, not their "
    "levels. A section links to the figure behind the row."
)


Rows = list[dict[str, Any]]


@dataclass(frozen=True)
class Sections:
    """The report's sections besides the figures, each computed from the cells alone, in a
    worker of its own beside the figures, by the function its field names."""

    access: Rows = field(metadata={"compute": access_rows})
    comparison: Rows = field(metadata={"compute": compare})
    records: Rows = field(metadata={"compute": record_rows})
    notes: list[str] = field(metadata={"compute": identical_notes})
    cells: Rows = field(metadata={"compute": cell_rows})
    episodes: Explored = field(metadata={"compute": explorer})
    models: str = field(metadata={"compute": models_section})
    chains: Rows = field(metadata={"compute": chain_rows})
    oracles: Rows = field(metadata={"compute": oracle_rows})
    people: str = field(metadata={"compute": people_section})

    @staticmethod
    def computers() -> list[Callable[[dict[str, dict[str, Cell]]], Any]]:
        """Each section's function, in the order of the fields its results fill."""
        return [f.metadata["compute"] for f in fields(Sections)]
