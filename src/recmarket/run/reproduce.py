"""Running named experiments: every cell of every spec over the domains, resumably.

Cells are keyed by configuration hash, so a cell shared by two experiments runs once and a
rerun skips finished cells (and resumes an interrupted one). The plan, which experiment and
cell each run directory serves, is written to ``plan.json`` for the report.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from recmarket.config import RunConfig
from recmarket.experiments.spec import builtin_names, load_spec
from recmarket.run.runner import run


@dataclass(frozen=True)
class PlannedCell:
    experiment: str
    cell: str
    run_dir: str
    digest: str


def plan(
    names: list[str], out: Path, scale: float = 1.0, overrides: dict[str, Any] | None = None
) -> tuple[list[PlannedCell], dict[str, RunConfig]]:
    """Every (experiment, cell) with its run directory, and the unique configs to run."""
    cells, configs = [], {}
    for name in names or builtin_names():
        spec = load_spec(name)
        for cell, cfg in spec.configs(scale, overrides):
            digest = cfg.digest()
            run_dir = out / "cells" / f"{cfg.condition}-{digest[:12]}"
            cells.append(PlannedCell(spec.name, cell, str(run_dir), digest))
            configs[str(run_dir)] = cfg
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
    (out / "plan.json").write_text(json.dumps([asdict(c) for c in cells], indent=1))
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
