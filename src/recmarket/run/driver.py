"""Driving many cells through one executor: every pending unit of every cell, longest first,
with this process the only writer of every store.

Scheduling the longest units first (LPT) and cutting long domains into parts keeps the
workers busy to the end: a plan whose largest cell ran last used to finish on one worker
while the others idled. Stores are opened when the plan is made and closed as soon as their
last unit is written.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from recmarket.config import RunConfig
from recmarket.embedding.cache import default_cache_dir
from recmarket.run.executor import PARTS_PER_WORKER, Executor, WorkUnit, plan_units, unit_cost
from recmarket.run.phases import Phases
from recmarket.run.store import RunStore

# progress(episodes stored, episodes in all the cells)
CellsProgress = Callable[[int, int], None]


def run_cells(
    configs: dict[str, RunConfig],
    executor: Executor,
    *,
    cache_dir: Path | None = None,
    progress: CellsProgress | None = None,
    phases: Phases | None = None,
) -> None:
    """Run (or resume) the offline cells ``{run directory: configuration}``.

    Each domain is cut into parts so that the plan holds at least PARTS_PER_WORKER units
    per worker of the executor; ``phases`` gains the workers' phases and the driver's own
    (planning, store writes, and the time it waited for results)."""
    for cfg in configs.values():
        if cfg.uses_llm:
            raise RuntimeError(
                "work units run the offline backend; run LLM cells with the local "
                "executor (their calls are concurrent already)"
            )
    phases = phases or Phases()
    with phases.timed("planning"):
        stores = {run_dir: RunStore.open(Path(run_dir), cfg) for run_dir, cfg in configs.items()}
        units = _units(configs, stores, executor.workers, cache_dir or default_cache_dir())
    try:
        _collect(configs, stores, units, executor, phases, progress)
    finally:
        for store in stores.values():
            store.close()


def _units(
    configs: dict[str, RunConfig], stores: dict[str, RunStore], workers: int, cache: Path
) -> list[WorkUnit]:
    """The work units of every cell's unfinished domains, the costliest first, each about a
    PARTS_PER_WORKER-th of a worker's share of the whole."""
    whole = sum(unit_cost(cfg, cfg.total_episodes) for cfg in configs.values())
    part_cost = max(whole / (PARTS_PER_WORKER * workers), 1.0)
    units = [
        unit
        for run_dir, cfg in configs.items()
        for unit in plan_units(cfg, stores[run_dir], cache, part_cost)
    ]
    units.sort(key=lambda u: (-u.cost, u.run_dir, u.domain, u.part))
    return units


def _collect(
    configs: dict[str, RunConfig],
    stores: dict[str, RunStore],
    units: list[WorkUnit],
    executor: Executor,
    phases: Phases,
    progress: CellsProgress | None,
) -> None:
    """Hand the units to the executor and write each result's rows to its cell's store as
    it comes, closing a store once its last unit is in (``stores`` keeps the open ones)."""
    left = Counter(u.run_dir for u in units)
    total = sum(cfg.total_episodes for cfg in configs.values())
    done = sum(len(stores[r].done(d)) for r, cfg in configs.items() for d in cfg.domains)
    for run_dir in [d for d in stores if not left[d]]:
        stores.pop(run_dir).close()
    waited = time.perf_counter()
    for result in executor.map(units):
        phases.add("driver waiting", time.perf_counter() - waited)
        phases.merge(result.phases)
        with phases.timed("store writes"):
            if result.rows:
                stores[result.run_dir].write_rows(result.rows)
            left[result.run_dir] -= 1
            if not left[result.run_dir]:
                stores.pop(result.run_dir).close()
        done += len(result.rows)
        if progress:
            progress(done, total)
        waited = time.perf_counter()


def run_distributed(
    cfg: RunConfig,
    out_dir: Path,
    executor: Executor,
    *,
    cache_dir: Path | None = None,
    progress: Callable[[str, int, int], None] | None = None,
) -> RunStore:
    """Run (or resume) one cell through an executor; the store is returned open."""
    report = (lambda done, total: progress("", done, total)) if progress else None
    run_cells({str(out_dir): cfg}, executor, cache_dir=cache_dir, progress=report)
    return RunStore.open(out_dir, cfg)
