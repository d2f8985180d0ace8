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
from recmarket.analysis.attacks import defence as defence_label
from recmarket.analysis.benchmark import attacker_share, twin_attacks
from recmarket.analysis.bootstrap import Interval, Row
from recmarket.catalogue.attack_spaces import space_for
from recmarket.config import RunConfig
from recmarket.experiments.schedule import TWIN, Schedule
from recmarket.experiments.spec import CellSpec, ExperimentSpec, load_spec
from recmarket.experiments.units import coarsest, memory_unit
from recmarket.locks import WriterLock
from recmarket.report.data import compact_rows
from recmarket.report.tables import write_csv_whole
from recmarket.run.driver import run_cells
from recmarket.run.executor import Executor
from recmarket.run.manifest import RunConflict
from recmarket.run.store import RunStore
from recmarket.run.study_plan import cell_dir as study_cell_dir
from recmarket.streams import Stream, call_seed

BENCHMARK = "reputation-benchmark"
HELDOUT_OFFSET = 1000  # a held-out seed: a search seed plus this, never a search seed
STUDY = "attack-search"
TRIALS_CSV, WORST_CSV, STORAGE = "trials.csv", "worst.csv", "search.sqlite"
TRIAL_COLUMNS = ("trial", "parameters", "gain", "gain_low", "gain_high", "seeds")
WORST_COLUMNS = (
    "attack",
    "defence",
    "defence_label",
    "parameters",
    "attacker_share",
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

    def __init__(
        self,
        defence: str,
        scale: float,
        spec: ExperimentSpec | None = None,
        overrides: Mapping[str, Any] | None = None,
        schedule: Schedule | None = None,
    ) -> None:
        spec = spec or load_spec(BENCHMARK)
        entries = {entry["name"]: entry for entry in spec.axes["defence"]}
        if defence not in entries:
            known = ", ".join(entries)
            raise ValueError(f"--defence {defence}: not a benchmark defence; known: {known}")
        self.spec, self.defence, self.scale = spec, entries[defence], scale
        self.overrides = dict(overrides or {})  # a reproduce's settings, as its cells have them
        # the whole benchmark's cut (every cell's settings made and checked: about a second,
        # so searches of one spec share theirs)
        self.schedule = schedule or spec.schedule(scale, overrides=self.overrides)
        self.seeds = spec.seeds

    def menu(self, attack: str) -> dict[str, Any]:
        """The menu cell's attacks of a family (``FAMILY@1``)."""
        cell = next(c for c in self.spec.cells if c.name == f"{attack}@1")
        return dict(cell.settings["market"]["attacks"])

    def configs(self, attacks: Mapping[str, Any], seeds: Sequence[int]) -> list[RunConfig]:
        """The cell of ``attacks`` under the defence, one config a seed: the cell the
        benchmark reads as itself, not the copy a memoryless cell gets on the schedule of
        users who remember (``TWIN``)."""
        trial = CellSpec(name="trial", settings={"market": {"attacks": dict(attacks)}})
        one: ExperimentSpec = self.spec.model_copy(
            update={"cells": (trial,), "axes": {"defence": [self.defence]}, "seeds": tuple(seeds)}
        )
        played = one.configs(self.scale, self.overrides, schedule=self.schedule)
        return [cfg for name, cfg in played if not name.endswith(f"/{TWIN}")]


@dataclass(frozen=True)
class Measured:
    """A point's gain over its policy-only twin, with its interval, on some seeds."""

    gain: Interval
    seeds: tuple[int, ...]


@dataclass(frozen=True)
class Planned:
    """What measuring a point plays: its cell and its policy-only twin, one config a seed."""

    played: tuple[RunConfig, ...]
    twin: tuple[RunConfig, ...]
    seeds: tuple[int, ...]

    @classmethod
    def of(cls, bench: Benchmark, attacks: Mapping[str, Any], seeds: Sequence[int]) -> Planned:
        played = bench.configs(attacks, seeds)
        twins = twin_attacks(played[0])
        if twins is None:
            raise ValueError("the attack is its own policy-only twin: its gain over it is 0")
        made = bench.configs({s: t.model_dump(mode="json") for s, t in twins.items()}, seeds)
        # paired episode for episode: the twin's copy on the cell's own schedule
        twin = [t for p in played for t in made if (t.seed, t.episodes) == (p.seed, p.episodes)]
        if len(twin) != len(played):
            raise ValueError(f"no policy-only twin on the schedule of {attacks}")
        return cls(tuple(played), tuple(twin), tuple(seeds))

    def dirs(self, cells: Path) -> dict[str, RunConfig]:
        """Its runs by directory under ``cells`` (a twin shared by trials runs once)."""
        return {str(cell_dir(cells, c)): c for c in (*self.played, *self.twin)}

    def read(self, cells: Path) -> Measured:
        """The attackers' gain over the twin, from the played runs."""
        owned = frozenset().union(*(o for _, _, o in attackers(self.played[0])))
        unit = coarsest([memory_unit(self.played[0]), memory_unit(self.twin[0])])
        rows = (_rows(cells, self.twin), _rows(cells, self.played))
        return Measured(gain(*rows, "top1_platform", owned, unit), self.seeds)


def _rows(cells: Path, configs: Sequence[RunConfig]) -> list[Row]:
    rows: list[Row] = []
    for cfg in configs:
        with RunStore.read(cell_dir(cells, cfg)) as store:
            rows += compact_rows(store.iter_episodes(), {"replicate": cfg.seed})
    return rows


def cell_dir(cells: Path, cfg: RunConfig) -> Path:
    """Where a cell's run lives: ``cells`` laid out as a reproduce directory is, by the
    settings' identity, so a search inside a reproduce of the benchmark reads the
    benchmark's own cells (the menu's, the twins), and a twin shared by trials runs once."""
    return cells / study_cell_dir(cfg.condition, cfg.digest())


def measure(
    bench: Benchmark,
    attacks: Mapping[str, Any],
    seeds: Sequence[int],
    cells: Path,
    executor: Executor,
) -> Measured:
    """Play a point's cell and its policy-only twin on ``seeds`` (resuming what is stored),
    and the attackers' gain over the twin."""
    planned = Planned.of(bench, attacks, seeds)
    run_cells(planned.dirs(cells), executor)
    return planned.read(cells)


def _seeds(seeds: Sequence[int]) -> str:
    return ";".join(map(str, seeds))


@dataclass(frozen=True)
class Searched:
    """What a search found: every trial's row, and the worst case's."""

    trials: list[dict[str, Any]]
    worst: dict[str, Any]


@dataclass(frozen=True)
class Asked:
    """A trial asked and not yet told: its point and what measuring it plays."""

    trial: Any  # Optuna's Trial
    point: dict[str, Any]
    planned: Planned


class Search:
    """One family's search under one defence, its trials kept in ``out`` and its cells under
    ``cells``. It is asked a trial at a time and told its measure, so several searches
    play their trials' cells together (``run_searches``) and find what each finds alone:
    each trial's sampler is seeded by the search's seed and the trials complete before it."""

    def __init__(
        self, attack: str, bench: Benchmark, out: Path, cells: Path, seed: int = 0
    ) -> None:
        self.space, self.bench, self.attack = space_for(attack), bench, attack
        self.out, self.cells, self.seed = out, cells, seed
        self.defence = str(bench.defence["name"])
        self._study: Any = None
        self._storage: Any = None

    @property
    def study(self) -> Any:
        if self._study is None:
            raise RuntimeError("the search is not open yet: call open first")
        return self._study

    def open(self) -> None:
        """Create or resume the search's store, refusing another search's."""
        import optuna

        optuna.logging.set_verbosity(optuna.logging.WARNING)
        self.out.mkdir(parents=True, exist_ok=True)
        # one connection a search: asking each trial of a fresh one costs a schema check
        self._storage = optuna.storages.RDBStorage(f"sqlite:///{self.out / STORAGE}")
        self._study = optuna.create_study(
            study_name=STUDY, storage=self._storage, direction="maximize", load_if_exists=True
        )
        asked = {
            "attack": self.attack,
            "defence": self.defence,
            "scale": self.bench.scale,
            "seed": self.seed,
            "overrides": self.bench.overrides,
        }
        _same_search(self.study, self.out, json.loads(json.dumps(asked)))  # as stored
        _ready(self.study, self.space.point_of(self.bench.menu(self.attack)))

    def complete(self) -> int:
        import optuna

        done = (optuna.trial.TrialState.COMPLETE,)
        return len(self.study.get_trials(deepcopy=False, states=done))

    def ask(self) -> Asked:
        """The next trial: the menu's point first, then the seeded sampler's."""
        import optuna

        done = self.complete()
        drawn = call_seed(self.seed, f"{self.attack}/{self.defence}", Stream.ATTACK_SEARCH, done)
        sampler = optuna.samplers.TPESampler(seed=drawn % 2**32)
        self._study = optuna.load_study(study_name=STUDY, storage=self._storage, sampler=sampler)
        trial = self.study.ask()
        point = self.space.suggest(trial)  # an enqueued trial's fixed values, else the sampler's
        return Asked(trial, point, Planned.of(self.bench, self.space.attacks(point), self.seeds))

    @property
    def seeds(self) -> tuple[int, ...]:
        return tuple(self.bench.seeds)

    def tell(self, asked: Asked) -> None:
        """Store the asked trial's measure, read from its played cells."""
        found = asked.planned.read(self.cells)
        asked.trial.set_user_attr("point", asked.point)
        asked.trial.set_user_attr("low", found.gain.low)
        asked.trial.set_user_attr("high", found.gain.high)
        self.study.tell(asked.trial, found.gain.estimate)
        write_csv_whole(self.trials(), self.out / TRIALS_CSV, TRIAL_COLUMNS)

    def trials(self) -> list[dict[str, Any]]:
        return _trial_rows(self.study, self.seeds)

    def winner(self, budget: int) -> tuple[dict[str, Any], Planned]:
        """The best of the first ``budget`` trials (the earliest of equals), and its
        re-measure on held-out seeds."""
        best = max(self.trials()[:budget], key=lambda r: r["gain"])
        heldout = tuple(s + HELDOUT_OFFSET for s in self.seeds)
        point = json.loads(best["parameters"])
        return best, Planned.of(self.bench, self.space.attacks(point), heldout)

    def finish(self, budget: int, best: dict[str, Any], heldout: Planned) -> Searched:
        """``worst.csv`` from the winner and its played held-out re-measure."""
        again = heldout.read(self.cells)
        worst = {
            "attack": self.attack,
            "defence": self.defence,
            "defence_label": defence_label(heldout.played[0]),  # as the benchmark's table
            "parameters": best["parameters"],
            "attacker_share": attacker_share(heldout.played[0]),
            "gain_search": best["gain"],
            "gain_heldout": again.gain.estimate,
            "gain_heldout_low": again.gain.low,
            "gain_heldout_high": again.gain.high,
            "search_seeds": _seeds(self.seeds),
            "heldout_seeds": _seeds(heldout.seeds),
            "interval_method": again.gain.design,
        }
        rows = self.trials()
        write_csv_whole(rows, self.out / TRIALS_CSV, TRIAL_COLUMNS)
        write_csv_whole([worst], self.out / WORST_CSV, WORST_COLUMNS)
        return Searched(rows[:budget], worst)


def run_searches(
    searches: Sequence[Search],
    budget: int,
    executor: Executor,
    on_trial: Callable[[int, int], None] | None = None,
) -> list[Searched]:
    """Run ``searches`` to ``budget`` trials each (resuming their stored trials), a trial of
    each at a time with their cells played together, then re-measure each winner on held-out
    seeds. ``on_trial``: (trials complete, trials in all) after each round of trials."""
    for s in searches:
        s.open()
    total = budget * len(searches)

    def report() -> None:
        if on_trial:
            on_trial(sum(min(s.complete(), budget) for s in searches), total)

    while pending := [s for s in searches if s.complete() < budget]:
        asked = [(s, s.ask()) for s in pending]
        run_cells({d: c for s, a in asked for d, c in a.planned.dirs(s.cells).items()}, executor)
        for s, a in asked:
            s.tell(a)
        report()
    winners = [(s, *s.winner(budget)) for s in searches]
    run_cells({d: c for s, _, h in winners for d, c in h.dirs(s.cells).items()}, executor)
    return [s.finish(budget, best, heldout) for s, best, heldout in winners]


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
    one = Search(attack, Benchmark(defence, scale), out, out, seed)
    out.mkdir(parents=True, exist_ok=True)
    with WriterLock(out):  # a second search into ``out`` stops at once, naming this one
        return run_searches([one], budget, executor, on_trial)[0]


def _same_search(study: Any, out: Path, asked: Mapping[str, Any]) -> None:
    """Keep what decides the search's trials (attack, defence, scale, seed, overrides) with
    its first trial; a rerun into ``out`` asking another is refused (``RunConflict``), so
    one store never holds the trials of two searches. The cells guard their own settings
    and code."""
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
