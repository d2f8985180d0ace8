"""What the report reads: the reproduce plan and each cell's episode rows (statistics
on them live in ``recmarket.analysis``)."""

from __future__ import annotations

import functools
import itertools
import re
import warnings
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from recmarket.analysis.bootstrap import Row, point
from recmarket.analysis.funnel import funnel
from recmarket.analysis.market_measures import shown_at
from recmarket.config import RunConfig
from recmarket.data.fingerprint import read_digests
from recmarket.experiments.spec import builtin_names, load_spec
from recmarket.locks import writer_elsewhere
from recmarket.run.store import STORE_NAME, RunStore
from recmarket.run.study_plan import PlanError, read_plan

Figure = tuple[Any, list[dict[str, Any]]]  # a drawn figure and its table's rows

SHORT_TEXT = 32  # characters: texts at most this long are labels repeated across rows


class CompactRow(Mapping[str, Any]):
    """An episode row as the report reads it: its values in a tuple, under column names
    every row of a store shares, and its short texts (domain, profile, policy, label,
    platform) one object each, not one per row. A dict per row held about 2 KB; a
    1,000,000-episode report then took 2.14 GB, over the bound of one process, and this
    form holds a row in about a quarter of that."""

    __slots__ = ("_columns", "_values")

    def __init__(self, columns: dict[str, int], values: tuple[Any, ...]) -> None:
        self._columns, self._values = columns, values

    def __getitem__(self, column: str) -> Any:
        return self._values[self._columns[column]]

    def __iter__(self) -> Iterator[str]:
        return iter(self._columns)

    def __len__(self) -> int:
        return len(self._columns)

    def __repr__(self) -> str:
        return f"CompactRow({dict(self)!r})"


def compact_rows(rows: Iterable[dict[str, Any]], extra: dict[str, Any]) -> list[CompactRow]:
    """``rows`` (dicts with the same keys) as CompactRows, each with the ``extra`` columns too."""
    rows = iter(rows)
    first = next(rows, None)
    if first is None:
        return []
    columns = {name: i for i, name in enumerate([*first, *extra])}
    texts: dict[str, str] = {}

    def shared(value: Any) -> Any:
        if isinstance(value, str) and len(value) <= SHORT_TEXT:
            return texts.setdefault(value, value)
        return value

    tail = tuple(extra.values())
    return [
        CompactRow(columns, tuple(shared(v) for v in row.values()) + tail)
        for row in itertools.chain([first], rows)
    ]


@dataclass(frozen=True)
class Made:
    """Where and when a run store was made, from its manifest."""

    commit: str  # "" outside a git checkout
    dirty: bool | None  # None: not known (no checkout)
    created: str  # ISO date and time
    version: str  # recmarket's
    data: tuple[tuple[str, str], ...] = ()  # each data file read, by name, and its SHA-256

    @classmethod
    def of(cls, manifest: Mapping[str, str]) -> Made:
        """What made a run, as its manifest records it."""
        dirty = manifest.get("git_dirty", "")
        files = read_digests(manifest.get("data_files", ""))
        return cls(
            manifest.get("git_commit", ""),
            None if dirty == "" else dirty == "true",
            manifest.get("created", ""),
            manifest.get("version", ""),
            tuple(sorted((name, d.sha256) for name, d in files.items())),
        )


@dataclass
class Cell:
    """One cell of a report: its experiment, name, figure, settings, the seeds pooled and
    their episodes."""

    experiment: str
    name: str  # the spec's label for the cell: shown, never used to find it
    figure: str  # which figure the cell's experiment feeds
    run_dir: Path
    rows: Sequence[Row]  # each marked with its ``replicate`` (the seed of the run it came from)
    config: RunConfig  # the first replicate's
    seeds: tuple[int, ...] = ()  # the replicates pooled here
    scale: float | None = None  # --scale it ran at (None: not recorded by an older plan)
    made: tuple[Made, ...] = ()  # each replicate's store's provenance
    full_rounds: float | None = None  # rounds a user plays at full scale (None: not recorded)
    cut: str = ""  # what the scale cut ("": not recorded)
    study: Path | None = None  # the directory it was loaded from (its plan's), if any

    @property
    def macro(self) -> dict[str, Any]:
        """Per domain the mean over every replicate's episodes (each seed has the same
        requests, so: the mean of the replicates' rates), then the mean over domains."""
        return funnel(self.rows, self.config)["macro"]

    @property
    def summary(self) -> dict[str, Any]:
        """The cell's episodes and the point values of the measures the tables show
        (``shown_at("table")``, macro over domains), under their names."""
        return {"episodes": len(self.rows)} | {
            m.name: point(self.rows, m.make(self.config)) for m in shown_at("table")
        }

    @property
    def pooling(self) -> str:
        """How the cell's seeds were pooled, in words (one seed, or which)."""
        if len(self.seeds) < 2:
            return f"seed {self.config.seed}"
        seeds = ", ".join(map(str, self.seeds))
        return f"{len(self.seeds)} seeds ({seeds}) pooled: rates are means over the seeds"


class MissingCell(LookupError):
    """A figure needs a cell the run does not have (a custom spec under a built-in figure)."""


def find(cells: Iterable[Cell], wanted: str, match: Callable[[RunConfig], bool]) -> Cell:
    """The cell whose settings ``match``; ``wanted`` describes it for the message."""
    found = [c for c in cells if match(c.config)]
    if len(found) != 1:
        raise MissingCell(f"{len(found)} cells with {wanted} (one expected)")
    return found[0]


def figure_of(experiment: str, planned: str) -> str:
    """The figure a plan entry names, or for an older plan its built-in spec's figure."""
    return planned or _builtin_figure(experiment)


@functools.cache
def _builtin_figure(experiment: str) -> str:
    """Read once per experiment, not once per cell of an older plan."""
    return load_spec(experiment).figure if experiment in builtin_names() else ""


class UnfinishedCells(UserWarning):
    """Planned cells a report leaves out: not started, stopped part-way, or still being
    written. Their rates would be of the episodes played so far, which are the early rounds
    alone (and a reputation cell's early rounds have few records), so none is read."""


def finished(run_dir: Path) -> tuple[list[CompactRow], RunConfig, Made] | str:
    """A planned cell's rows (each marked with its seed), settings and provenance, read
    once; or, where its store cannot be reported yet, why, in words."""
    if not (run_dir / STORE_NAME).is_file():
        return "not started"
    holder = writer_elsewhere(run_dir)
    if holder is not None:
        return f"being written by pid {holder}"
    with RunStore.read(run_dir) as store:
        played, cfg = store.count(), store.config()
        if played < cfg.total_episodes:
            return f"{played:,} of {cfg.total_episodes:,} episodes"
        rows = compact_rows(store.iter_episodes(), {"replicate": cfg.seed})
        return rows, cfg, Made.of(store.manifest())


class CellsKeptApart(UserWarning):
    """Cells a report found twice, or under one name with other settings, in several
    directories: a run found twice (its settings and seed alike) counts once, and a name
    shared by other settings is told apart by its directory's."""


def load_cells(out_dirs: list[Path]) -> dict[str, dict[str, Cell]]:
    """experiment -> cell label -> Cell, from each directory's plan.json and run stores.

    Cells of one experiment whose settings differ only in their seed are replications and
    become one Cell: their episode rows together, each marked with its seed, so rates
    average over the seeds and intervals resample users within each replicate. A cell not
    finished (``finished``) is left out, and all such are named in one warning
    (``UnfinishedCells``); a run found twice counts once, and cells of one name with other
    settings in several directories are kept apart, each label followed by its directory's
    name (``CellsKeptApart``)."""
    found: dict[str, dict[str, list[tuple[str, Cell]]]] = defaultdict(lambda: defaultdict(list))
    loaded: dict[str, tuple[list[CompactRow], RunConfig, Made] | str] = {}
    seen: dict[tuple[str, str], Path] = {}  # (experiment, full settings hash) -> where
    notes: list[str] = []
    for out in out_dirs:
        for entry in read_plan(out):
            run_dir = str(out / entry.run_dir)
            if run_dir not in loaded:
                loaded[run_dir] = finished(Path(run_dir))
            held = loaded[run_dir]
            if isinstance(held, str):
                continue
            rows, cfg, made = held
            key = (entry.experiment, cfg.digest())
            if key in seen:  # the same run again: a directory given twice, or a copy
                if seen[key] != Path(run_dir):
                    where = f"{seen[key]} and {run_dir}"
                    notes.append(f"{entry.experiment}/{entry.cell} in {where}, counted once")
                continue
            seen[key] = Path(run_dir)
            cell = Cell(
                entry.experiment,
                entry.cell,
                figure_of(entry.experiment, entry.figure),
                Path(run_dir),
                rows,
                cfg,
                scale=entry.scale,
                full_rounds=entry.full_rounds,
                cut=entry.cut,
                made=(made,),
                study=out,
            )
            settings = cfg.model_copy(update={"seed": 0}).digest()
            found[entry.experiment][settings].append((entry.cell, cell))
    left_out = [f"{Path(d).name} ({why})" for d, why in loaded.items() if isinstance(why, str)]
    if left_out:
        warnings.warn(
            UnfinishedCells(
                f"left out {len(left_out)} unfinished cell(s): {', '.join(left_out)}; rerun "
                "their reproduce into the same directory to finish them"
            ),
            stacklevel=2,
        )
    if not found:
        where = ", ".join(map(str, out_dirs))
        raise PlanError(f"{where}: no finished cell to report ({len(left_out)} unfinished)")
    cells = {
        experiment: _labelled([_pooled(members) for members in groups.values()], notes)
        for experiment, groups in found.items()
    }
    if notes:
        warnings.warn(
            CellsKeptApart(f"cells found in several directories: {'; '.join(notes)}"),
            stacklevel=2,
        )
    return cells


def _labelled(pooled: list[tuple[str, Cell]], notes: list[str]) -> dict[str, Cell]:
    """An experiment's cells by label; a label that names cells of other settings (found in
    several directories) is followed by each one's directory, and noted."""
    count = Counter(label for label, _ in pooled)
    by_label = {}
    for label, cell in pooled:
        if count[label] > 1:
            where = cell.run_dir.parent.parent.name
            notes.append(f"{cell.experiment}/{label} kept apart as {label} ({where})")
            label = f"{label} ({where})"
            cell = replace(cell, name=label)
        by_label[label] = cell
    return by_label


def pooled_label(cell: str) -> str:
    """A cell's label with its seed pooled: its plan name less the ``seed=N`` part (last,
    or before a scaled twin's schedule)."""
    return "/".join(p for p in cell.split("/") if not re.fullmatch(r"seed=\d+", p)) or cell


def _pooled(members: list[tuple[str, Cell]]) -> tuple[str, Cell]:
    """One cell's label and Cell, its replications pooled (a single run: itself)."""
    members = sorted(members, key=lambda m: m[1].config.seed)
    first = members[0][1]
    seeds = tuple(sorted({c.config.seed for _, c in members}))
    if len(members) == 1:
        return members[0][0], replace(first, seeds=seeds)
    label = pooled_label(members[0][0])
    rows = [r for _, c in members for r in c.rows]
    made = tuple(m for _, c in members for m in c.made)
    return label, replace(first, name=label, rows=rows, seeds=seeds, made=made)
