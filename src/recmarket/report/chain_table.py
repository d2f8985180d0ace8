"""Every LocalRep contrast a run holds, with its accountability chain (``analysis/chain``).

A contrast is a pair of cells of one experiment whose settings differ only in the condition:
one without reputation and without the Rep instruction (the base), one with reputation. Each
becomes one row of ``tables/accountability_chain.csv`` and of the report's accountability
section, which says where the chain breaks when it does, and its ceiling (how far beliefs
could move the target's Top-1 in the base's pools). Where the experiment also holds the
instruction alone (``rep-instruction``, the same settings otherwise), the row splits the
contrast into the instruction's part and the records'. The paper comparison reads the same
links for its own LocalRep rows.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from recmarket.analysis.bootstrap import DRAWS, Interval, UnpairedCells
from recmarket.analysis.chain import MOVES, PARTS, Ceiling, breaks, ceiling, chain, chain_row, said
from recmarket.catalogue.conditions import condition
from recmarket.config import RunConfig
from recmarket.experiments.units import coarsest, memory_unit
from recmarket.report.data import Cell
from recmarket.report.html import table_html

# Settings only a condition with reputation reads: equal in a base cell whatever they are.
REPUTATION_ONLY = ("condition", "reputation_scope", "market.reputation")
Links = dict[str, Interval]  # a contrast's chain, link by link


class Chain(NamedTuple):
    """A contrast's links and its base arm's ceiling (None: the rows store no grid)."""

    links: Links
    limit: Ceiling | None


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


def _base(cell: Cell) -> bool:
    return not _stateful(cell) and not condition(cell.config.condition).instructed


def _instruction(cell: Cell) -> bool:
    return not _stateful(cell) and condition(cell.config.condition).instructed


def is_localrep_pair(base: Cell, treated: Cell) -> bool:
    """Whether the two cells are a LocalRep contrast: the base without reputation or the
    instruction, the other with reputation, their settings otherwise equal."""
    return (
        _base(base)
        and _stateful(treated)
        and settings_but(base.config, *REPUTATION_ONLY)
        == settings_but(treated.config, *REPUTATION_ONLY)
    )


def localrep_pairs(cells: dict[str, dict[str, Cell]]) -> list[tuple[str, Cell, Cell]]:
    """(label, base, treated) for every cell with reputation whose experiment has a cell
    without it and otherwise the same settings, in the experiments' order."""
    pairs = []
    for experiment, members in cells.items():
        bases = {settings_but(c.config, *REPUTATION_ONLY): c for c in members.values() if _base(c)}
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


def instruction_twin(members: dict[str, Cell], treated: Cell) -> Cell | None:
    """The experiment's cell with the Rep instruction alone and ``treated``'s settings
    otherwise, if it has one."""
    key = settings_but(treated.config, *REPUTATION_ONLY)
    return next(
        (
            c
            for c in members.values()
            if _instruction(c) and settings_but(c.config, *REPUTATION_ONLY) == key
        ),
        None,
    )


def chain_of(base: Cell, treated: Cell, *, draws: int = DRAWS) -> Links | None:
    """The pair's chain links, or None where its arms do not hold the same episodes (a
    cell some of whose seeds a stopped reproduce never finished)."""
    unit = coarsest([memory_unit(base.config), memory_unit(treated.config)])
    try:
        return chain(base.rows, treated.rows, unit, draws=draws)
    except UnpairedCells:
        return None


def localrep_links(
    arms: list[Cell], known: dict[tuple[int, int], Chain | None], *, draws: int = DRAWS
) -> Chain | None:
    """The chain of a paper number's two arms where they are a LocalRep contrast (the base
    without reputation, the other with it, settings otherwise equal), else None; each pair
    is measured once into ``known``."""
    if len(arms) != 2 or not is_localrep_pair(*arms):
        return None
    base, treated = arms
    key = (id(base), id(treated))
    if key not in known:
        links = chain_of(base, treated, draws=draws)
        known[key] = None if links is None else Chain(links, ceiling(base.rows))
    return known[key]


def chain_columns(found: Chain | None) -> dict[str, str]:
    """A paper-comparison row's chain columns: the target shortlisted and Top-1 changes,
    the share of moved Top-1s that went to the target, and where the chain breaks (all
    empty for a number that is not a LocalRep contrast)."""
    if found is None:
        return dict.fromkeys(
            ("chain_shortlisted", "chain_top1", "chain_moved_to_target", "chain"), ""
        )
    links = found.links
    moved = links.get("moved_to_target")
    return {
        "chain_shortlisted": said(links["target_shortlisted"]),
        "chain_top1": said(links["target_top1"]),
        "chain_moved_to_target": "" if moved is None else said(moved),
        "chain": breaks(links, found.limit),
    }


def chain_rows(cells: dict[str, dict[str, Cell]]) -> list[dict[str, Any]]:
    """One row per LocalRep contrast: its links with 95% intervals, its ceiling, its split
    into the instruction's and the records' parts where the experiment has the
    instruction alone, and where it breaks."""
    rows = []
    for experiment, members in cells.items():
        rows += [_chain_row(members, *pair) for pair in localrep_pairs({experiment: members})]
    return [row for row in rows if row is not None]


def _chain_row(
    members: dict[str, Cell], label: str, base: Cell, treated: Cell
) -> dict[str, Any] | None:
    links = chain_of(base, treated)
    if links is None:
        return None
    split = None
    twin = instruction_twin(members, treated)
    if twin is not None:
        instruction, records = chain_of(base, twin), chain_of(twin, treated)
        if instruction is not None and records is not None:
            split = dict(zip(PARTS, (instruction, records), strict=True))
    return chain_row(label, links, ceiling(base.rows), split)


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
SPLIT_SHOWN = tuple(
    (f"{part}_{column}", f"{words}: {part}")
    for column, words in (("target_top1", "target Top-1"), ("target_purchased", "target purchased"))
    for part in PARTS
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

    def reach(row: dict[str, Any]) -> str:
        if row["ceiling_low"] == "":
            return ""
        return f"{row['ceiling_low']:.1f}-{row['ceiling_high']:.1f}%"

    shown = [
        {
            "contrast": r["contrast"],
            **{w: link(r, c) for c, w in SHOWN},
            **{w: link(r, c) for c, w in SPLIT_SHOWN},
            "target Top-1 over every belief": reach(r),
            "chain": r["chain"],
            "interval": r["interval_method"],
        }
        for r in rows
    ]
    return (
        '<figure id="accountability_chain"><h3>The accountability chain of every LocalRep '
        "contrast: changes in points (LocalRep minus NoRep), except the moved Top-1s, which "
        "are shares (%) of the episodes whose Top-1 item differs between the arms; 95% "
        "intervals, each made as its last column says. Where the experiment holds the Rep "
        "instruction alone, a change splits into the instruction's part (instruction minus "
        "NoRep) and the records' (LocalRep minus instruction). The range of target Top-1 "
        "over every belief is what the ranker's noiseless rule reaches on the NoRep pools "
        "over a grid of beliefs per family: under 2 points, the chain cannot express an "
        "effect. Otherwise it breaks at the first link whose interval does not show the "
        "move it needs.</h3>" + table_html(shown) + "</figure>"
    )
