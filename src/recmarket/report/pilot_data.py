"""A reproduce directory's pilot as the report reads it: per study cell (its seeds pooled
as the report pools them) the surrogate's plays, the study's own and its replays, and the
pilot backend's episodes on the chosen units; and the pairs of cells a contrast compares.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from recmarket.analysis.bootstrap import Row
from recmarket.analysis.choices import read_alternatives, with_expectation
from recmarket.analysis.frame import flat_settings
from recmarket.config import RunConfig
from recmarket.report.data import compact_rows, pooled_label
from recmarket.run.pilot import PILOT, PilotCell, PilotPlan
from recmarket.run.pilot_file import MIN_UNITS_PER_STRATUM
from recmarket.run.pilot_record import check_recorded, read_pilot
from recmarket.run.store import STORE_NAME, RunStore
from recmarket.run.unit_choice import UnitChoice
from recmarket.sqlite_files import StoreError


@dataclass(frozen=True)
class PilotedCell:
    """One study cell, its seeds pooled: the surrogate's plays (the study's first, then
    each replay; each a list of rows over the seeds) and the pilot's rows."""

    experiment: str
    label: str
    unit: str
    config: RunConfig  # the first seed's
    plays: tuple[list[Row], ...]
    pilot: list[Row]
    first_look: float = 1.0  # the first look's share over this pilot's share
    # cross-fitted (the surrogate calibrated on the pilot): per fold its surrogate's plays,
    # and each pilot unit's fold by (seed, domain, unit key)
    fold_plays: tuple[tuple[list[Row], ...], ...] = ()
    fold_of: dict[tuple[int, str, str], int] = field(default_factory=dict)
    least: int = MIN_UNITS_PER_STRATUM  # pilot units a stratum of an interval holds at least
    estimand: str = "realised"  # expected: the pilot backend over its draws (noise below)
    noise: tuple[list[Row], ...] = ()  # the pilot backend's noise replays, their units only
    # an active allocation: each pilot unit's chance of being drawn by (seed, domain, key)
    inclusion_of: dict[tuple[int, str, str], float] | None = None


class PilotUnfinished(LookupError):
    """A pilot or replay store does not hold what the pilot plan asks of it yet."""


def _rows(run_dir: Path) -> tuple[list[Row], RunConfig]:
    """A store's rows, each carrying its decision's answers where the run kept them (a
    surrogate's replay: analysis/choices.py)."""
    if not (run_dir / STORE_NAME).is_file():
        raise PilotUnfinished(f"{run_dir.name} not started")
    with RunStore.read(run_dir) as store:
        cfg, choices = store.config(), store.choices()
        rows: list[Row] = list(compact_rows(store.iter_episodes(), {"replicate": cfg.seed}))
        if not choices:
            return rows, cfg
        found = []
        try:
            for row in rows:
                body = choices.get((row["domain"], row["ord"]))
                where = f"{store.path}: episode {row['domain']}:{row['ord']}"
                if body is not None:
                    shown = (row.get("shown_platforms") or "").split(",")
                    row = with_expectation(row, read_alternatives(body, where, shown))
                elif row.get("any_purchase") or row.get("no_purchase"):
                    raise ValueError(f"{where}: its decision's alternatives are missing")
                found.append(row)
        except ValueError as exc:  # a damaged, edited or deleted entry, named
            raise StoreError(str(exc)) from None
        return found, cfg


def _whole(rows: list[Row], cfg: RunConfig, run_dir: Path) -> list[Row]:
    if len(rows) < cfg.total_episodes:
        raise PilotUnfinished(f"{run_dir.name}: {len(rows)} of {cfg.total_episodes} episodes")
    return rows


def _read_whole(run_dir: Path) -> list[Row]:
    rows, cfg = _rows(run_dir)
    return _whole(rows, cfg, run_dir)


def piloted_cells(out: Path, plan: PilotPlan) -> list[PilotedCell]:
    """Every study cell of the pilot with its plays, seeds pooled, in plan order."""
    grouped: dict[tuple[str, str], list[PilotCell]] = defaultdict(list)
    for c in plan.cells:
        grouped[(c.experiment, pooled_label(c.cell))].append(c)
    found = []
    for (experiment, label), members in grouped.items():
        plays: list[list[Row]] = [[] for _ in range(1 + len(members[0].replay_dirs))]
        folds: list[list[list[Row]]] = [[[] for _ in f] for f in members[0].fold_dirs]
        fold_of: dict[tuple[int, str, str], int] = {}
        pilot: list[Row] = []
        noise: list[list[Row]] = [[] for _ in members[0].noise_dirs]
        inclusion: dict[tuple[int, str, str], float] = {}
        configs = []
        for c in members:
            study, cfg = _rows(out / c.study_dir)
            check_recorded(plan, c, cfg, out / PILOT)
            configs.append(cfg)
            plays[0] += _whole(study, cfg, out / c.study_dir)
            for i, replay_dir in enumerate(c.replay_dirs, start=1):
                plays[i] += _read_whole(out / replay_dir)
            if c.folds and not c.fold_dirs:
                raise PilotUnfinished(f"{c.cell}: the surrogate is not calibrated on the pilot yet")
            for k, dirs in enumerate(c.fold_dirs):
                for r, fold_dir in enumerate(dirs):
                    folds[k][r] += _read_whole(out / fold_dir)
            fold_of |= {
                (cfg.seed, d, key): k for d, keys in c.folds.items() for key, k in keys.items()
            }
            inclusion |= {
                (cfg.seed, d, key): chance
                for d, keys in c.inclusion.items()
                for key, chance in keys.items()
            }
            if not c.choice().count():
                continue  # a whole (seed, domain) is the unit, and this seed is not drawn
            pilot += _held(out, c.pilot_dir, c.choice(), study)
            for r, noise_dir in enumerate(c.noise_dirs):
                noise[r] += _held(out, noise_dir, c.noise_choice(), study)
        first = min(configs, key=lambda cfg: cfg.seed)
        first_look = (plan.first_share or plan.share) / plan.share
        found.append(
            PilotedCell(
                experiment,
                label,
                members[0].unit,
                first,
                tuple(plays),
                pilot,
                first_look,
                tuple(tuple(f) for f in folds),
                fold_of,
                plan.least,
                plan.estimand,
                tuple(noise),
                inclusion if any(c.inclusion for c in members) else None,
            )
        )
    return found


def _held(out: Path, run_dir: str, choice: UnitChoice, study: list[Row]) -> list[Row]:
    """A pilot directory's episodes of the chosen units, all of them (else unfinished)."""
    wanted = sum(choice.holds(r) for r in study)
    held = [r for r in _rows(out / run_dir)[0] if choice.holds(r)]
    if len(held) < wanted:
        raise PilotUnfinished(f"{run_dir}: {len(held)} of {wanted} pilot episodes")
    return held


def contrasts(cells: list[PilotedCell]) -> list[tuple[PilotedCell, PilotedCell]]:
    """Pairs (earlier, later) of one experiment's cells that play the same episodes and
    differ in one setting: the later minus the earlier is a contrast the study makes."""
    pairs = []
    for i, a in enumerate(cells):
        for b in cells[i + 1 :]:
            if a.experiment != b.experiment or len(a.plays[0]) != len(b.plays[0]):
                continue
            fa, fb = flat_settings(a.config), flat_settings(b.config)
            differ = [k for k in fa.keys() | fb.keys() if fa.get(k) != fb.get(k)]
            if len(differ) == 1 and differ[0] != "episodes.requests":
                pairs.append((a, b))
    return pairs


def read_piloted(out_dirs: list[Path]) -> tuple[list[PilotedCell], list[str]]:
    """The piloted cells of every directory that has a pilot, and why any is left out."""
    cells, notes = [], []
    for out in out_dirs:
        plan = read_pilot(out)
        if plan is None:
            continue
        try:
            cells += piloted_cells(out, plan)
        except PilotUnfinished as exc:
            notes.append(f"{out}: the pilot is not finished ({exc}); rerun its reproduce")
    return cells, notes
