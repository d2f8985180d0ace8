"""The reputation benchmark's worst cases: each searchable attack family's search
(``study.attack_search``) under each of the benchmark's defences, run once the study's cells
are played, whenever a spec with a ``[search]`` table is reproduced.

The searches keep their trials under ``OUT/searches/FAMILY/DEFENCE`` and play their cells in
the study's own ``OUT/cells``, laid out as the study's are, so each search's first trial,
the menu's cell, and every twin the benchmark holds are the benchmark's own runs, played
once. Every search asks its next trial in the same round and their cells play together, so
the workers stay busy while each search proposes what it would alone. The winners'
re-measures on held-out seeds are gathered in ``OUT/searches/worst.csv``, which the report
reads beside the benchmark's cells (``analysis.worst_case``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from recmarket.experiments.spec import ExperimentSpec, load_spec
from recmarket.report.tables import write_csv_whole
from recmarket.run.executor import Executor, LocalExecutor, ProcessExecutor
from recmarket.study.attack_cells import Benchmark
from recmarket.study.attack_search import WORST_COLUMNS, WORST_CSV, Search, run_searches

SEARCHES = "searches"  # under a reproduce directory: every search's trials, and worst.csv


def worst_path(study: Path) -> Path:
    """Where a reproduce directory keeps its searches' worst cases."""
    return study / SEARCHES / WORST_CSV


def spec_searches(
    spec: ExperimentSpec, out: Path, scale: float, overrides: Mapping[str, Any]
) -> list[Search]:
    """Every (family, defence) search the spec asks, its cells in ``out``'s."""
    if spec.search is None:
        return []
    defences = [str(entry["name"]) for entry in spec.axes["defence"]]
    schedule = spec.schedule(scale, overrides=dict(overrides))
    return [
        Search(
            family,
            Benchmark(defence, scale, spec, overrides, schedule),
            out / SEARCHES / family / defence,
            out,
            spec.search.seed,
        )
        for family in spec.search.searched()
        for defence in defences
    ]


def search_study(
    names: list[str],
    out: Path,
    *,
    scale: float,
    overrides: Mapping[str, Any],
    workers: int,
    on_trial: Callable[[int, int], None] | None = None,
) -> int:
    """Run the searches of every named spec with a ``[search]`` table (resuming those
    stored) and write ``searches/worst.csv``; the searches run."""
    given = {k: v for k, v in overrides.items() if k != "seed"}  # the specs name their seeds
    found: list[dict[str, Any]] = []
    ran = 0
    executor: Executor = ProcessExecutor(workers) if workers > 1 else LocalExecutor()
    for name in names:
        spec = load_spec(name)
        searches = spec_searches(spec, out, scale, given)
        if not searches or spec.search is None:
            continue
        budget = spec.search.trials(scale)
        found += [s.worst for s in run_searches(searches, budget, executor, on_trial)]
        ran += len(searches)
    if ran:
        write_csv_whole(found, worst_path(out), WORST_COLUMNS)
    return ran
