"""A reproduce directory's plan: which experiment and cell each run directory serves,
written to ``plan.json`` for the report, and the run directory of every cell.

Cells are keyed by configuration hash, so a cell shared by two experiments runs once and a
rerun finds its directory again (an older form of its settings included).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from recmarket.config import RunConfig
from recmarket.experiments.schedule import TWIN
from recmarket.experiments.spec import DEFAULT_SEEDS, every_names, load_spec
from recmarket.files import sweep_temporaries, write_text_whole
from recmarket.locks import BRIEF_WAIT, WriterLock
from recmarket.profiles import PROFILE_NAMES
from recmarket.run.store import STORE_NAME

PLAN = "plan.json"


@dataclass(frozen=True)
class PlannedCell:
    """One cell of a reproduce plan: its experiment, name, run directory, settings digest,
    figure and scale."""

    experiment: str
    cell: str
    run_dir: str  # relative to the reproduce directory, so the directory can move
    digest: str
    figure: str = ""  # the spec's figure (plans written before it was stored have none)
    scale: float | None = None  # --scale it ran at (None: a plan written before it was stored)
    full_rounds: float | None = None  # rounds a user plays at full scale (None: not stored)
    cut: str = ""  # what the scale cut (experiments.schedule), "" where not stored


class PlanError(ValueError):
    """plan.json is missing or malformed; the message names the file."""


# The experiment a single run's directory reads as: ``recmarket run`` makes no plan.
ONE_RUN = "run"


def read_plan(out: Path) -> list[PlannedCell]:
    """The cells a reproduce directory holds. Run directories are read relative to ``out``
    (a plan written with absolute paths by an older version is read by their last two
    parts, ``cells/NAME``), so a copied or moved directory reads only its own stores. The
    directory of a single run (``recmarket run --out``) holds one cell, itself, of the
    experiment ``run``, named by the directory."""
    path = out / PLAN
    if not path.is_file() and (out / STORE_NAME).is_file():
        return [PlannedCell(ONE_RUN, out.resolve().name, ".", "", scale=1.0)]  # nothing cut
    if not path.is_file():
        raise PlanError(
            f"{out}: no {PLAN} and no {STORE_NAME} (give a directory that recmarket "
            "reproduce or recmarket run wrote)"
        )
    try:
        entries = json.loads(path.read_text(encoding="utf-8"))
        cells = [PlannedCell(**entry) for entry in entries]
    except (ValueError, TypeError) as exc:
        raise PlanError(f"{path}: not a reproduce plan ({exc})") from None
    return [replace(c, run_dir=str(Path(*Path(c.run_dir).parts[-2:]))) for c in cells]


def write_plan(out: Path, cells: list[PlannedCell]) -> None:
    """Merge ``cells`` into the directory's plan: a later reproduce into the same directory
    adds its experiments' cells (replacing a cell of the same experiment and name) rather
    than dropping the earlier ones. Two reproduces into one directory merge one after the
    other, under its writer lock, and the plan is replaced whole (a reader never sees half)."""
    with WriterLock(out, wait=BRIEF_WAIT):
        sweep_temporaries(out, below=False)  # a killed merge's
        kept = read_plan(out) if (out / PLAN).is_file() else []
        merged = {(c.experiment, c.cell): c for c in [*kept, *cells]}
        write_text_whole(out / PLAN, json.dumps([asdict(c) for c in merged.values()], indent=1))


def plan(
    names: list[str],
    out: Path,
    scale: float = 1.0,
    overrides: dict[str, Any] | None = None,
    seeds: int = DEFAULT_SEEDS,
) -> tuple[list[PlannedCell], dict[str, RunConfig]]:
    """Every (experiment, cell) with its run directory, and the unique configs to run.

    Each spec that names no seeds of its own is replicated at ``seeds`` seeds, counted up
    from the overrides' seed (by default the run's, 42): a seed is a design axis, so a cell
    two experiments share at one seed still runs once."""
    overrides = dict(overrides or {})
    first = overrides.pop("seed", RunConfig.model_fields["seed"].default)
    cells, configs = [], {}
    for name in names or every_names():
        spec = load_spec(name).replicated(seeds, first)
        given = overrides if spec.seeds else {**overrides, "seed": first}
        full = dict(spec.configs(1.0, given))
        cut = spec.schedule(scale).said()
        for cell, cfg in spec.configs(scale, given):
            digest = cfg.digest()
            run_dir = cell_dir(cfg.condition, digest)
            episodes = full[cell.removesuffix(f"/{TWIN}")].episodes  # a twin's full cell
            rounds = episodes.requests / (episodes.users_per_profile * len(PROFILE_NAMES))
            cells.append(
                PlannedCell(spec.name, cell, str(run_dir), digest, spec.figure, scale, rounds, cut)
            )
            configs[str(out / run_dir)] = cfg
    return cells, configs


def cell_dir(condition: str, digest: str) -> Path:
    """A cell's run directory, relative to its reproduce directory, named by its settings'
    hash (a cell a reproduce made under an older form of its settings is found here once
    ``recmarket migrate`` has renamed it)."""
    return Path("cells") / f"{condition}-{digest[:12]}"
