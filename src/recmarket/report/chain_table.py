"""Every LocalRep contrast a run holds, with its accountability chain (``analysis/chain``).

A contrast is a pair of cells of one experiment whose settings differ only in the condition:
one without reputation (the base), one with it. Each becomes one row of
``tables/accountability_chain.csv`` and of the report's accountability section, which says
where the chain breaks when it does; the paper comparison reads the same links for its own
LocalRep rows.
"""

from __future__ import annotations

from typing import Any

from recmarket.analysis.bootstrap import DRAWS, Interval, UnpairedCells
from recmarket.analysis.chain import MOVES, breaks, chain, chain_row, said
from recmarket.catalogue.conditions import condition
from recmarket.config import RunConfig
from recmarket.experiments.units import coarsest, memory_unit
from recmarket.report.data import Cell
from recmarket.report.html import table_html

# Settings only a condition with reputation reads: equal in a base cell whatever they are.
REPUTATION_ONLY = ("condition", "reputation_scope", "market.reputation")
Links = dict[str, Interval]  # a contrast's chain, link by link


def settings_but(config: RunConfig, *paths: str) -> str:
    """The cell's settings without those at ``paths`` (dotted), as a key: two cells with the
    same key differ at most there."""
    dumped = config.model_dump(mode="json")
    for path in paths:
        *parents, last = path.split(".")
        node = dumped
        for part in parents:
            node = node[part]
        node.pop(last, None)
    return repr(dumped)


def _stateful(cell: Cell) -> bool:
    return condition(cell.config.condition).reputation


def is_localrep_pair(base: Cell, treated: Cell) -> bool:
    """Whether the two cells are a LocalRep contrast: the base without reputation, the other
    with it, their settings otherwise equal."""
    return (
        not _stateful(base)
        and _stateful(treated)
        and settings_but(base.config, *REPUTATION_ONLY)
        == settings_but(treated.config, *REPUTATION_ONLY)
    )


def localrep_pairs(cells: dict[str, dict[str, Cell]]) -> list[tuple[str, Cell, Cell]]:
    """(label, base, treated) for every cell with reputation whose experiment has a cell
    without it and otherwise the same settings, in the experiments' order."""
    pairs = []
    for experiment, members in cells.items():
        bases = {
            settings_but(c.config, *REPUTATION_ONLY): c
            for c in members.values()
            if not _stateful(c)
        }
        for cell in filter(_stateful, members.values()):
            base = bases.get(settings_but(cell.config, *REPUTATION_ONLY))
            if base is not None:
                pairs.append((_label(experiment, base, cell), base, cell))
    return pairs


def _label(experiment: str, base: Cell, treated: Cell) -> str:
    """The contrast as a reader names it: the experiment, what its two cells share, and
    which condition (and scope) each arm has."""
    shared = [p for p in treated.name.split("/") if not p.startswith("condition=")]
    arm = treated.config.condition
    if treated.config.reputation_scope != "local":
        arm += f", {treated.config.reputation_scope}"
    where = f" {'/'.join(shared)}" if shared else ""
    return f"{experiment}:{where} ({arm} minus {base.config.condition})"


def chain_of(base: Cell, treated: Cell, *, draws: int = DRAWS) -> Links | None:
    """The pair's chain links, or None where its arms do not hold the same episodes (a
    cell some of whose seeds a stopped reproduce never finished)."""
    unit = coarsest([memory_unit(base.config), memory_unit(treated.config)])
    try:
        return chain(base.rows, treated.rows, unit, draws=draws)
    except UnpairedCells:
        return None


def localrep_links(
    arms: list[Cell], known: dict[tuple[int, int], Links | None], *, draws: int = DRAWS
) -> Links | None:
    """The chain of a paper number's two arms where they are a LocalRep contrast (the base
    without reputation, the other with it, settings otherwise equal), else None; each pair
    is measured once into ``known``."""
    if len(arms) != 2 or not is_localrep_pair(*arms):
        return None
    base, treated = arms
    key = (id(base), id(treated))
    if key not in known:
        known[key] = chain_of(base, treated, draws=draws)
    return known[key]


def chain_columns(links: Links | None) -> dict[str, str]:
    """A paper-comparison row's chain columns: the target shortlisted and Top-1 changes,
    the share of moved Top-1s that went to the target, and where the chain breaks (all
    empty for a number that is not a LocalRep contrast)."""
    if links is None:
        return dict.fromkeys(
            ("chain_shortlisted", "chain_top1", "chain_moved_to_target", "chain"), ""
        )
    moved = links.get("moved_to_target")
    return {
        "chain_shortlisted": said(links["target_shortlisted"]),
        "chain_top1": said(links["target_top1"]),
        "chain_moved_to_target": "" if moved is None else said(moved),
        "chain": breaks(links),
    }


def chain_rows(cells: dict[str, dict[str, Cell]]) -> list[dict[str, Any]]:
    """One row per LocalRep contrast: its links with 95% intervals and where it breaks."""
    rows = []
    for label, base, treated in localrep_pairs(cells):
        links = chain_of(base, treated)
        if links is not None:
            rows.append(chain_row(label, links))
    return rows


# The report's view of a chain row: each link as "estimate [low, high]".
SHOWN = (
    ("exaggeration_top1", "Exaggeration Top-1 share"),
    ("target_shortlisted", "target shortlisted"),
    ("target_top1", "target Top-1"),
    ("target_top1_via_exaggeration", "target Top-1, proposed by Exaggeration"),
    ("target_purchased", "target purchased"),
    ("moved_to_target", "moved Top-1s now the target"),
    ("moved_from_target", "moved Top-1s once the target"),
)


def chain_html(rows: list[dict[str, Any]]) -> str:
    """The chain table as the accountability section shows it."""
    if not rows:
        return ""

    def link(row: dict[str, Any], column: str) -> str:
        if row[column] == "":
            return ""
        sign = "" if column in MOVES else "+"
        ends = (row[column], row[f"{column}_low"], row[f"{column}_high"])
        a, b, c = (f"{v:{sign}.2f}" for v in ends)
        return f"{a} [{b}, {c}]"

    shown = [
        {
            "contrast": r["contrast"],
            **{w: link(r, c) for c, w in SHOWN},
            "chain": r["chain"],
            "interval": r["interval_method"],
        }
        for r in rows
    ]
    return (
        '<figure id="accountability_chain"><h3>The accountability chain of every LocalRep '
        "contrast: changes in points (LocalRep minus NoRep), except the moved Top-1s, which "
        "are shares (%) of the episodes whose Top-1 item differs between the arms; 95% "
        "intervals, each made as its last column says. The chain breaks at the first link "
        "whose interval does not show the move it needs.</h3>" + table_html(shown) + "</figure>"
    )
