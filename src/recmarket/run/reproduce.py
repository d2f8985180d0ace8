"""Running named experiments: every cell of every spec over the domains, resumably.

Cells are keyed by configuration hash, so a cell shared by two experiments runs once and a
rerun skips finished cells (and resumes an interrupted one). The plan, which experiment and
cell each run directory serves, is written to ``plan.json`` for the report.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from recmarket.config import RunConfig
from recmarket.experiments.spec import builtin_names, load_spec
from recmarket.run.runner import run

PLAN = "plan.json"


@dataclass(frozen=True)
class PlannedCell:
    experiment: str
    cell: str
    run_dir: str  # relative to the reproduce directory, so the directory can move
    digest: str


class PlanError(ValueError):
    """plan.json is missing or malformed; the message names the file."""


def read_plan(out: Path) -> list[PlannedCell]:
    """The cells a reproduce directory holds. Run directories are read relative to ``out``
    (a plan written with absolute paths by an older version is read by their last two
    parts, ``cells/NAME``), so a copied or moved directory reads only its own stores."""
    path = out / PLAN
    if not path.is_file():
        raise PlanError(f"{out}: no {PLAN} (make it with recmarket reproduce)")
    try:
        entries = json.loads(path.read_text(encoding="utf-8"))
        cells = [PlannedCell(**entry) for entry in entries]
    except (ValueError, TypeError) as exc:
        raise PlanError(f"{path}: not a reproduce plan ({exc})") from None
    return [replace(c, run_dir=str(Path(*Path(c.run_dir).parts[-2:]))) for c in cells]


def write_plan(out: Path, cells: list[PlannedCell]) -> None:
    """Merge ``cells`` into the directory's plan: a later reproduce into the same directory
    adds its experiments' cells (replacing a cell of the same experiment and name) rather
    than dropping the earlier ones. Written to a temporary file, then renamed into place."""
    kept = read_plan(out) if (out / PLAN).is_file() else []
    merged = {(c.experiment, c.cell): c for c in [*kept, *cells]}
    temporary = out / f".{PLAN}.tmp"
    temporary.write_text(json.dumps([asdict(c) for c in merged.values()], indent=1))
    temporary.replace(out / PLAN)


def plan(
    names: list[str], out: Path, scale: float = 1.0, overrides: dict[str, Any] | None = None
) -> tuple[list[PlannedCell], dict[str, RunConfig]]:
    """Every (experiment, cell) with its run directory, and the unique configs to run."""
    cells, configs = [], {}
    for name in names or builtin_names():
        spec = load_spec(name)
        for cell, cfg in spec.configs(scale, overrides):
            digest = cfg.digest()
            run_dir = Path("cells") / f"{cfg.condition}-{digest[:12]}"
            cells.append(PlannedCell(spec.name, cell, str(run_dir), digest))
            configs[str(out / run_dir)] = cfg
    return cells, configs


def _run_cell(job: tuple[str, str, dict[str, Any]]) -> int:
    """One cell in a worker process (configs travel as JSON)."""
    config_json, run_dir, options = job
    cfg = RunConfig.model_validate_json(config_json)
    run(cfg, Path(run_dir), **options).store.close()
    return cfg.episodes.requests * len(cfg.domains)


def reproduce(
    names: list[str],
    out: Path,
    *,
    scale: float = 1.0,
    overrides: dict[str, Any] | None = None,
    progress: Callable[[int, int], None] | None = None,
    workers: int = 1,
    **run_options: Any,
) -> list[PlannedCell]:
    """Run every unique cell (in ``workers`` processes; cells are independent)."""
    cells, configs = plan(names, out, scale, overrides)
    out.mkdir(parents=True, exist_ok=True)
    write_plan(out, cells)
    total = sum(cfg.episodes.requests * len(cfg.domains) for cfg in configs.values())
    jobs = [(cfg.model_dump_json(), run_dir, run_options) for run_dir, cfg in configs.items()]
    done = 0
    if workers <= 1:
        results: Any = map(_run_cell, jobs)
        for episodes in results:
            done += episodes
            if progress:
                progress(done, total)
        return cells
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for episodes in pool.map(_run_cell, jobs):
            done += episodes
            if progress:
                progress(done, total)
    return cells
