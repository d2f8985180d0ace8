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

Every cell is an ordinary run under ``OUT/cells``, laid out as a reproduce's
(``study.attack_cells``; resumable, as every run is); the trials are kept in
``OUT/search.sqlite`` and written to ``OUT/trials.csv`` after each one. Several searches
run together (``run_searches``) play their trials' cells in one round, as the benchmark's do
(``study.benchmark_search``)."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from recmarket.analysis.attacks import defence as defence_label
from recmarket.analysis.benchmark import attacker_share
from recmarket.catalogue.attack_spaces import space_for
from recmarket.locks import WriterLock
from recmarket.report.tables import write_csv_whole
from recmarket.run.driver import run_cells
from recmarket.run.executor import Executor
from recmarket.run.manifest import RunConflict
from recmarket.streams import Stream, call_seed
from recmarket.study.attack_cells import Benchmark, Planned

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
        """The search's Optuna study (an error before ``open``)."""
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
        """The trials complete: a killed trial is not one."""
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
        """The search's seeds: the benchmark's."""
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
        """Every complete trial's row, in the order they finished."""
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
