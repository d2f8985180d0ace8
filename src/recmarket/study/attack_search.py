"""``recmarket attack-search``: a defence's worst case in an attack family, found by search.

A menu attack at fixed parameters says how a defence fares against that menu; its own worst
case may rank it otherwise (Kerr and Cohen, AAMAS 2009; Gunes, Tran-Thanh and Norman,
IJCAI 2019, search false-evidence injection without derivatives). The search varies the
family's parameters and the attackers' share (``catalogue.attack_spaces``) in the reputation
benchmark's market under one of its defences, its schedule cut by ``--scale`` as
``reproduce`` cuts the benchmark's.

- **Objective**: the attacking seats' Top-1 share in the trial's cell minus the same seats'
  in its policy-only twin (``analysis.benchmark.twin_attacks``), paired on the benchmark's
  seeds: what gaming the records adds beyond the behaviour.
- **Optimiser**: Optuna's TPE sampler (Bergstra et al. 2011), a maintained derivative-free
  optimiser that takes mixed dimensions (numbers, whole numbers, choices) in one space, as
  an attack's are, and keeps its trials in SQLite so a killed search resumes from them.
  Nevergrad's portfolio needs a budget far above a benchmark cell's cost; CMA-ES searches
  continuous spaces only. Each trial's sampler is seeded by the search's seed and the
  number of trials before it, so a resumed search proposes what an uninterrupted one would.
- **The menu first**: trial 0 is the benchmark's menu cell of the family (``FAMILY@1``), so
  the worst found is never below the menu.
- **Resuming**: a trial a kill left running is failed and asked again of the same seeded
  sampler; its cells resume as every run does.
- **The winner's curse**: the best of many noisy trials overstates its gain. The winner is
  re-measured on held-out seeds the search never used (each search seed plus
  HELDOUT_OFFSET), with the benchmark's interval; ``worst.csv`` gives both.

Every cell is an ordinary run under ``OUT/cells`` (resumable, as every run is); the trials
are kept in ``OUT/search.sqlite`` and written to ``OUT/trials.csv`` after each one.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from recmarket.analysis.attacks import attackers, gain
from recmarket.analysis.benchmark import twin_attacks
from recmarket.analysis.bootstrap import Interval, Row
from recmarket.catalogue.attack_spaces import SearchSpace, space_for
from recmarket.config import RunConfig
from recmarket.experiments.spec import CellSpec, ExperimentSpec, load_spec
from recmarket.experiments.units import coarsest, memory_unit
from recmarket.locks import WriterLock
from recmarket.report.data import compact_rows
from recmarket.report.tables import write_csv_whole
from recmarket.run.driver import run_cells
from recmarket.run.executor import Executor
from recmarket.run.manifest import RunConflict
from recmarket.run.store import RunStore
from recmarket.streams import Stream, call_seed

BENCHMARK = "reputation-benchmark"
HELDOUT_OFFSET = 1000  # a held-out seed: a search seed plus this, never a search seed
STUDY = "attack-search"
TRIALS_CSV, WORST_CSV, STORAGE = "trials.csv", "worst.csv", "search.sqlite"
TRIAL_COLUMNS = ("trial", "parameters", "gain", "gain_low", "gain_high", "seeds")
WORST_COLUMNS = (
    "attack",
    "defence",
    "parameters",
    "gain_search",
    "gain_heldout",
    "gain_heldout_low",
    "gain_heldout_high",
    "search_seeds",
    "heldout_seeds",
    "interval_method",
)


class Benchmark:
    """The reputation benchmark's market under one defence, its schedule cut by ``scale``
    as the whole benchmark's is."""

    def __init__(self, defence: str, scale: float) -> None:
        spec = load_spec(BENCHMARK)
        entries = {entry["name"]: entry for entry in spec.axes["defence"]}
        if defence not in entries:
            known = ", ".join(entries)
            raise ValueError(f"--defence {defence}: not a benchmark defence; known: {known}")
        self.spec, self.defence, self.scale = spec, entries[defence], scale
        self.schedule = spec.schedule(scale)
        self.seeds = spec.seeds

    def menu(self, attack: str) -> dict[str, Any]:
        """The menu cell's attacks of a family (``FAMILY@1``)."""
        cell = next(c for c in self.spec.cells if c.name == f"{attack}@1")
        return dict(cell.settings["market"]["attacks"])

    def configs(self, attacks: Mapping[str, Any], seeds: Sequence[int]) -> list[RunConfig]:
        """The cell of ``attacks`` under the defence, one config a seed."""
        trial = CellSpec(name="trial", settings={"market": {"attacks": dict(attacks)}})
        one: ExperimentSpec = self.spec.model_copy(
            update={"cells": (trial,), "axes": {"defence": [self.defence]}, "seeds": tuple(seeds)}
        )
        return [cfg for _, cfg in one.configs(self.scale, schedule=self.schedule)]


@dataclass(frozen=True)
class Measured:
    """A point's gain over its policy-only twin, with its interval, on some seeds."""

    gain: Interval
    seeds: tuple[int, ...]


def _rows(out: Path, configs: Sequence[RunConfig]) -> list[Row]:
    rows: list[Row] = []
    for cfg in configs:
        with RunStore.read(cell_dir(out, cfg)) as store:
            rows += compact_rows(store.iter_episodes(), {"replicate": cfg.seed})
    return rows


def cell_dir(out: Path, cfg: RunConfig) -> Path:
    """Where a cell's run lives: by its settings' identity, so a twin shared by trials
    runs once."""
    return out / "cells" / cfg.digest()


def measure(
    bench: Benchmark,
    attacks: Mapping[str, Any],
    seeds: Sequence[int],
    out: Path,
    executor: Executor,
) -> Measured:
    """Play a point's cell and its policy-only twin on ``seeds`` (resuming what is stored),
    and the attackers' gain over the twin."""
    played = bench.configs(attacks, seeds)
    twins = twin_attacks(played[0])
    if twins is None:
        raise ValueError("the attack is its own policy-only twin: its gain over it is 0")
    twin = bench.configs({s: t.model_dump(mode="json") for s, t in twins.items()}, seeds)
    run_cells({str(cell_dir(out, c)): c for c in (*played, *twin)}, executor)
    owned = frozenset().union(*(o for _, _, o in attackers(played[0])))
    unit = coarsest([memory_unit(played[0]), memory_unit(twin[0])])
    found = gain(_rows(out, twin), _rows(out, played), "top1_platform", owned, unit)
    return Measured(found, tuple(seeds))


def _seeds(seeds: Sequence[int]) -> str:
    return ";".join(map(str, seeds))


@dataclass(frozen=True)
class Searched:
    """What a search found: every trial's row, and the worst case's."""

    trials: list[dict[str, Any]]
    worst: dict[str, Any]


def search(
    attack: str,
    defence: str,
    budget: int,
    scale: float,
    out: Path,
    executor: Executor,
    *,
    seed: int = 0,
    on_trial: Callable[[int, int], None] | None = None,
) -> Searched:
    """Search ``attack``'s space under ``defence`` for ``budget`` trials (resuming those
    stored in ``out``), then re-measure the winner on held-out seeds."""

    space = space_for(attack)
    bench = Benchmark(defence, scale)
    out.mkdir(parents=True, exist_ok=True)
    with WriterLock(out):  # a second search into ``out`` stops at once, naming this one
        return _search(space, bench, attack, defence, budget, out, executor, seed, on_trial)


def _search(
    space: SearchSpace,
    bench: Benchmark,
    attack: str,
    defence: str,
    budget: int,
    out: Path,
    executor: Executor,
    seed: int,
    on_trial: Callable[[int, int], None] | None,
) -> Searched:
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    storage = f"sqlite:///{out / STORAGE}"
    study = optuna.create_study(
        study_name=STUDY, storage=storage, direction="maximize", load_if_exists=True
    )
    _same_search(
        study, out, {"attack": attack, "defence": defence, "scale": bench.scale, "seed": seed}
    )
    _ready(study, space.point_of(bench.menu(attack)))
    while (done := _complete(study)) < budget:
        drawn = call_seed(seed, f"{attack}/{defence}", Stream.ATTACK_SEARCH, done) % 2**32
        sampler = optuna.samplers.TPESampler(seed=drawn)
        study = optuna.load_study(study_name=STUDY, storage=storage, sampler=sampler)
        trial = study.ask()
        point = space.suggest(trial)  # an enqueued trial's fixed values, else the sampler's
        found = measure(bench, space.attacks(point), bench.seeds, out, executor)
        trial.set_user_attr("point", point)
        trial.set_user_attr("low", found.gain.low)
        trial.set_user_attr("high", found.gain.high)
        study.tell(trial, found.gain.estimate)
        write_csv_whole(_trial_rows(study, bench.seeds), out / TRIALS_CSV, TRIAL_COLUMNS)
        if on_trial:
            on_trial(done + 1, budget)
    rows = _trial_rows(study, bench.seeds)
    write_csv_whole(rows, out / TRIALS_CSV, TRIAL_COLUMNS)
    best = max(rows[:budget], key=lambda r: r["gain"])  # the earliest of equals
    point = json.loads(best["parameters"])
    heldout = tuple(s + HELDOUT_OFFSET for s in bench.seeds)
    again = measure(bench, space.attacks(point), heldout, out, executor)
    worst = {
        "attack": attack,
        "defence": defence,
        "parameters": best["parameters"],
        "gain_search": best["gain"],
        "gain_heldout": again.gain.estimate,
        "gain_heldout_low": again.gain.low,
        "gain_heldout_high": again.gain.high,
        "search_seeds": _seeds(bench.seeds),
        "heldout_seeds": _seeds(heldout),
        "interval_method": again.gain.design,
    }
    write_csv_whole([worst], out / WORST_CSV, WORST_COLUMNS)
    return Searched(rows[:budget], worst)


def _complete(study: Any) -> int:
    import optuna

    return len(study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.COMPLETE,)))


def _same_search(study: Any, out: Path, asked: Mapping[str, Any]) -> None:
    """Keep what decides the search's trials (attack, defence, scale, seed) with its first
    trial; a rerun into ``out`` asking another is refused (``RunConflict``), so one store
    never holds the trials of two searches. The cells guard their own settings and code."""
    kept = study.user_attrs.get("search")
    if kept is None:
        study.set_user_attr("search", dict(asked))
    elif kept != dict(asked):
        raise RunConflict(
            f"{out} holds the trials of another search ({kept}), not of {dict(asked)}; "
            "give another --out"
        )


def _ready(study: Any, menu: Mapping[str, Any]) -> None:
    """A trial a kill left running is failed: the next is asked of a sampler seeded by the
    trials complete before it, so it proposes what the killed one did. The menu's point is
    queued until a trial completes (a kill during the menu's trial queues it again)."""
    import optuna

    state = optuna.trial.TrialState
    for t in study.get_trials(deepcopy=False, states=(state.RUNNING,)):
        study.tell(t.number, state=state.FAIL)
    if not study.get_trials(deepcopy=False, states=(state.COMPLETE, state.WAITING)):
        study.enqueue_trial(dict(menu))


def _trial_rows(study: Any, seeds: Sequence[int]) -> list[dict[str, Any]]:
    """The complete trials in the order they finished, one row each."""
    import optuna

    done = study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.COMPLETE,))
    done = sorted(done, key=lambda t: (t.datetime_complete, t.number))
    return [
        {
            "trial": i,
            "parameters": json.dumps(t.user_attrs["point"], sort_keys=True),
            "gain": t.value,
            "gain_low": t.user_attrs["low"],
            "gain_high": t.user_attrs["high"],
            "seeds": _seeds(seeds),
        }
        for i, t in enumerate(done)
    ]
