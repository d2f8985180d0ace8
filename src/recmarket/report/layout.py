"""Where everything sits in the report: sections in the paper's order, a stable anchor for
every figure and table (its file stem), the paper comparison's rows linked to the figure
behind them, and each figure's caption giving the paper's values and our verdicts."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from typing import Any

from recmarket.report.paper import NOT_PAIRED


@dataclass(frozen=True)
class Section:
    """One section of the report: its anchor, title and figures, in order."""

    anchor: str
    title: str
    stems: tuple[str, ...]  # its figures and tables, in order


PAPER_SECTIONS = (
    Section(
        "access",
        "4.2 Access: cross-platform querying changes who can compete",
        ("fig03_funnel", "access_check"),
    ),
    Section(
        "attention",
        "4.3 Attention: when access becomes a bottleneck",
        ("fig04_market_expansion", "fig05_shortlist_capacity"),
    ),
    Section(
        "explanation",
        "4.4 From item competition to explanation competition",
        ("fig06_homogeneous_decisions",),
    ),
    Section(
        "accountability",
        "4.5 Accountability: outcome-grounded reputation reallocates attention",
        (
            "fig07_top1_by_family",
            "fig07_label_counterfactual",
            "fig08_purchase_by_composition",
            "accountability_chain",
        ),
    ),
    Section(
        "appendix",
        "Appendix A: robustness, memory scope, what memory learns, catalog overlap",
        (
            "fig09_robustness",
            "fig10_reputation_scope",
            "fig11_label_distribution",
            "fig12_same_item",
        ),
    ),
    Section(
        "dynamic",
        "Beyond the paper: long histories, dynamic markets, attacks and defences, rewritten "
        "listings, market design",
        (
            "acc_long_histories",
            "dyn1_strategic_adaptation",
            "dyn2_platform_entry",
            "attacks",
            "reputation_benchmark",
            "reputation_frontier",
            "reputation_worst_case",
            "copy_adoption",
            "frontier",
            "oracle_contrasts",
        ),
    ),
)
# The sections after the figures: (anchor, title).
CLOSING = (
    ("comparison", "The paper's numbers beside this run's"),
    ("records", "Could each reputation treatment act?"),
    ("models", "LLM models: audit cards beside their results"),
    ("people", "The simulated users against real people: validity cards"),
    ("ppi", "Results for the pilot backend: prediction-powered intervals"),
    ("cells", "Every cell"),
    ("explorer", "Episode explorer"),
)
# What the paper comparison's "section" column cites -> the figure or table behind it.
CITED = {
    "Fig. 3": "fig03_funnel",
    "Fig. 4": "fig04_market_expansion",
    "Fig. 5": "fig05_shortlist_capacity",
    "Fig. 6": "fig06_homogeneous_decisions",
    "Fig. 7": "fig07_top1_by_family",
    "Fig. 8": "fig08_purchase_by_composition",
    "Table 2": "fig09_robustness",
    "A.4": "fig09_robustness",
    "Fig. 10": "fig10_reputation_scope",
    "Fig. 11": "fig11_label_distribution",
    "Fig. 12": "fig12_same_item",
    "A.2": "access_check",
}


def section_of(stem: str) -> str:
    """The anchor of the section a figure or table belongs to."""
    for section in PAPER_SECTIONS:
        if stem in section.stems:
            return section.anchor
    raise KeyError(f"{stem}: no report section places it (recmarket.report.layout)")


def cited_stem(cited: str) -> str | None:
    """The figure or table a comparison row cites: its most specific reference ("4.5,
    Fig. 8" -> Fig. 8), or None for a reference with no figure here."""
    for part in reversed(re.split(r",\s*", cited)):
        if part in CITED:
            return CITED[part]
    return None


@dataclass(frozen=True)
class Entry:
    """A line of the contents: a section, or a figure or table within one."""

    anchor: str
    title: str
    children: tuple[Entry, ...] = ()


def nav(entries: list[Entry]) -> str:
    """The contents list: every section, and under it each figure and table, linked."""

    def items(level: list[Entry] | tuple[Entry, ...]) -> str:
        return "".join(
            f'<li><a href="#{html.escape(e.anchor)}">{html.escape(e.title)}</a>'
            + (f"<ol>{items(e.children)}</ol>" if e.children else "")
            + "</li>"
            for e in level
        )

    return f'<nav id="contents"><h2>Contents</h2><ol>{items(entries)}</ol></nav>'


def caption(stem: str, comparison: list[dict[str, Any]], shown: int = 6) -> str:
    """The paper's values for this figure beside ours, with our verdicts, as HTML."""
    rows = [
        (i, r)
        for i, r in enumerate(comparison)
        if cited_stem(r["section"]) == stem and r["verdict"] not in ("not run", NOT_PAIRED)
    ]
    if not rows:
        return ""
    lines = [
        f'<li><a href="#{row_anchor(i)}">{html.escape(r["what"])}</a>: paper '
        f"{html.escape(r['paper'])}, ours {html.escape(_ours(r))}: "
        f"<strong>{html.escape(r['verdict'])}</strong></li>"
        for i, r in rows[:shown]
    ]
    more = len(rows) - shown
    if more > 0:
        lines.append(f'<li>and {more} more in <a href="#comparison">the paper comparison</a></li>')
    return f"<figcaption>The paper beside this run:<ul>{''.join(lines)}</ul></figcaption>"


def _ours(row: dict[str, Any]) -> str:
    if row["ours"] == "":
        return "not measured"
    span = f" [{row['low']}, {row['high']}]" if row["low"] != "" else " (no interval)"
    return f"{row['ours']}{span}"


def row_anchor(index: int) -> str:
    """The anchor of the paper comparison's row ``index``."""
    return f"paper-{index + 1}"
