"""A pilot beside a study: another backend plays a random share of the study's units, the
offline surrogate plays every unit (the bulk) and replays it with fresh role draws, and the
report joins them into prediction-powered intervals (analysis/ppi.py).

The pilot file holds the tables that make the pilot backend, ``[agents]``, ``[roles]`` and
``[llm]``, and a ``[pilot]`` table; everything else comes from each study cell. A pilot
backend draws its role randomness from draws of its own (``RunConfig.draws``), keyed like
the surrogate's by episode and purpose, so its draws are common to the study's cells and
its contrasts stay paired; ``draws = "shared"`` gives it the surrogate's, for exact checks.
A unit's prediction is the surrogate's mean over ``surrogate_replays`` plays of it: the
study's own and R - 1 replays, each with its own role draws; with ``exact_choices`` a
replay's decision counts at its expectation over the answers it could have given, where
the deciding backend says their chances (the offline user's logit does), which removes
the noise of its one draw from the prediction (analysis/choices.py).

``pilot.json`` in the reproduce directory records the pilot: its file's settings, share and
seed, and for every cell its unit, the directories of its pilot and replays and the units
chosen (run/pilot_units.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Any

from recmarket.config import RunConfig
from recmarket.config_file import ConfigError
from recmarket.experiments.spec import load_spec
from recmarket.experiments.units import memory_unit
from recmarket.run.pilot_file import (
    PilotFile,
    PilotSettings,
    noise_configs,
    pilot_config,
    read_pilot_file,
    replay_configs,
    resolved_estimand,
)
from recmarket.run.pilot_units import (
    FEWEST,
    chosen_seeds,
    chosen_units,
    fewest_a_stratum,
    pilot_size,
    study_unit,
    unit_folds,
    unit_keys,
)
from recmarket.run.study_plan import PlannedCell, cell_dir
from recmarket.run.unit_choice import UnitChoice

PILOT = "pilot.json"


@dataclass(frozen=True)
class PilotAsked:
    """A pilot beside the study: its file, the share of units it plays and its seed."""

    path: Path
    share: float
    seed: int = 0


def spec_pilot(names: list[str]) -> PilotAsked | None:
    """The pilot the specs name in their ``[pilot]`` tables; one at most, as a directory
    holds one pilot."""
    named = {}
    for name in names:
        spec = load_spec(name)
        if spec.pilot is not None:
            named[name] = PilotAsked(Path(spec.pilot.file), spec.pilot.share, spec.pilot.seed)
    if len(set(named.values())) > 1:
        raise ConfigError(
            f"specs {' and '.join(sorted(named))} name different pilots; a reproduce "
            "directory holds one: reproduce them apart, or give one with --pilot"
        )
    return next(iter(named.values()), None)


@dataclass(frozen=True)
class PilotCell:
    """One study cell's pilot: the unit, the study's, the pilot's and the replays' run
    directories (relative to the reproduce directory), and per domain the units chosen."""

    experiment: str
    cell: str
    unit: str
    study_dir: str
    pilot_dir: str
    replay_dirs: tuple[str, ...]
    chosen: dict[str, list[str]]
    # cross-fitting (calibrate_folds >= 2): per fold the calibrated surrogate's plays, and
    # per domain each chosen unit's fold
    fold_dirs: tuple[tuple[str, ...], ...] = ()
    folds: dict[str, dict[str, int]] = field(default_factory=dict)
    # the expected estimand: the pilot backend's noise replays and, per domain, their units
    noise_dirs: tuple[str, ...] = ()
    noise_chosen: dict[str, list[str]] = field(default_factory=dict)
    # an active allocation: per domain each chosen unit's chance of being drawn
    inclusion: dict[str, dict[str, float]] = field(default_factory=dict)

    def choice(self) -> UnitChoice:
        """The chosen units as a filter for playing and reading."""
        return UnitChoice(self.unit, {d: frozenset(k) for d, k in self.chosen.items()})

    def noise_choice(self) -> UnitChoice:
        """The units the noise replays play, as a filter."""
        return UnitChoice(self.unit, {d: frozenset(k) for d, k in self.noise_chosen.items()})

    def played_dirs(self) -> list[tuple[str, UnitChoice]]:
        """The pilot backend's run directories with the units each plays."""
        return [(self.pilot_dir, self.choice())] + [
            (d, self.noise_choice()) for d in self.noise_dirs
        ]


@dataclass(frozen=True)
class PilotPlan:
    """What a pilot plays beside a study, as recorded in ``pilot.json``."""

    file: str
    settings: dict[str, Any]
    share: float
    seed: int
    cells: tuple[PilotCell, ...]
    first_share: float | None = None  # the share of the first look at this pilot
    estimand: str = "realised"  # what its intervals are for (pilot_file.resolved_estimand)

    def refuse_undoing(self, earlier: PilotPlan | None, where: Path) -> None:
        """Refuse what would undo a look at ``earlier``, the pilot the directory holds: a
        smaller share, another seed or another backend would let a pilot be redrawn until
        a result pleased, with the anytime-valid intervals claiming a first look that
        never happened. Growing the share is allowed."""
        if earlier is None:
            return
        backend = {k: v for k, v in self.settings.items() if k != "pilot"}
        was = {k: v for k, v in earlier.settings.items() if k != "pilot"}
        changed = [
            *([f"seed {self.seed}"] if self.seed != earlier.seed else []),
            *([f"share {self.share:g}"] if self.share < earlier.share else []),
            *(["another backend"] if backend != was else []),
            *(["other role draws"] if self._draws != earlier._draws else []),
            *([f"allocation {self.allocation}"] if self.allocation != earlier.allocation else []),
        ]
        if changed:
            raise ConfigError(
                f"{where}: the pilot was looked at with share {earlier.share:g} and seed "
                f"{earlier.seed}, and {' and '.join(changed)} would redraw it; a new pilot "
                "needs a new --out (a larger --pilot-share grows this one)"
            )

    @property
    def _draws(self) -> str:
        return self.pilot_settings.draws

    def grown_from(self, earlier: PilotPlan | None) -> PilotPlan:
        """This plan, keeping the first look's share where ``earlier`` is the same pilot
        (its file's settings and seed) at a smaller or equal share."""
        first = self.share
        if (
            earlier is not None
            and (earlier.settings, earlier.seed) == (self.settings, self.seed)
            and earlier.share <= self.share
        ):
            first = earlier.first_share or earlier.share
        return replace(self, first_share=first)

    @cached_property
    def pilot_settings(self) -> PilotSettings:
        """The recorded ``[pilot]`` table, validated once: the properties below read it."""
        return PilotFile.model_validate(self.settings).pilot

    @property
    def replays(self) -> int:
        """Plays of every unit behind the surrogate's prediction."""
        return self.pilot_settings.surrogate_replays

    @property
    def exact_choices(self) -> bool:
        """Whether the surrogate's replays keep their decisions' chances."""
        return self.pilot_settings.exact_choices

    @property
    def least(self) -> int:
        """Pilot units each stratum of an interval holds at least."""
        return self.pilot_settings.min_units_per_stratum

    @property
    def noise_share(self) -> float:
        """The share of the pilot's units its noise replays play."""
        return self.pilot_settings.noise_share

    @property
    def allocation(self) -> str:
        """How the pilot's units are spread over its strata (run/pilot_allocation.py)."""
        return self.pilot_settings.allocation

    @property
    def folds(self) -> int:
        """Folds the surrogate is calibrated and cross-fitted over (0: not calibrated)."""
        return self.pilot_settings.calibrate_folds


def plan_pilot(
    cells: list[PlannedCell],
    configs: dict[str, RunConfig],
    out: Path,
    path: Path,
    share: float,
    seed: int,
) -> tuple[PilotPlan, dict[str, RunConfig], dict[str, RunConfig]]:
    """The pilot of a planned study, and the configurations to play: the surrogate's replays
    (whole cells) and the pilot's cells ({run directory: config}, played on their units)."""
    if not 0 < share <= 1:
        raise ConfigError(f"--pilot-share: {share} is not in (0, 1]")
    pilot = read_pilot_file(path)
    studied = {c.run_dir: configs[str(out / c.run_dir)] for c in cells}
    llm_cells = sorted(c.cell for c in cells if studied[c.run_dir].uses_llm)
    if llm_cells:
        raise ConfigError(
            f"--pilot: the study's cells are the bulk, played by the offline surrogate, but "
            f"{llm_cells[0]} has models; give the model in the pilot file's [llm] table"
        )
    agents = {cfg.agents.model_dump_json() for cfg in studied.values()}
    if pilot.pilot.calibrate_folds and len(agents) > 1:
        raise ConfigError(
            f"{path}: [pilot] calibrate_folds: the study's cells differ in their [agents] "
            "settings, and one calibrated surrogate would replace them all; set "
            "calibrate_folds = 0 (or calibrate apart with recmarket calibrate)"
        )
    units = {
        experiment: study_unit(
            memory_unit(studied[c.run_dir]) for c in cells if c.experiment == experiment
        )
        for experiment in {c.experiment for c in cells}
    }
    replays, played, planned = {}, {}, []
    for c in cells:
        study = studied[c.run_dir]
        own = pilot_config(study, pilot, path)
        pilot_dir = str(cell_dir(own.condition, own.digest()))
        replay_dirs = []
        for cfg in replay_configs(study, pilot.pilot.surrogate_replays, pilot.pilot.exact_choices):
            run_dir = str(cell_dir(cfg.condition, cfg.digest()))
            replays[str(out / run_dir)] = cfg
            replay_dirs.append(run_dir)
        unit = units[c.experiment]
        most = max(
            studied[o.run_dir].episodes.requests for o in cells if o.experiment == c.experiment
        )
        seeds = {studied[o.run_dir].seed for o in cells if o.experiment == c.experiment}
        fewest = fewest_a_stratum(pilot.pilot.min_units_per_stratum, _strata(unit, seeds, study))
        chosen = _chosen(unit, most, seeds, share, seed, study, fewest)
        folds = _folds(pilot.pilot.calibrate_folds, chosen, seed, study, unit)
        estimand = resolved_estimand(pilot, own)
        noise_dirs, noise_chosen = [], {}
        if estimand == "expected" and any(chosen.values()):
            noise_chosen = noise_units(
                unit, chosen, most, seeds, (share, pilot.pilot.noise_share), seed, study
            )
            for cfg in noise_configs(own, pilot.pilot.noise_replays):
                noise_dirs.append(str(cell_dir(cfg.condition, cfg.digest())))
                played[str(out / noise_dirs[-1])] = cfg
        planned.append(
            PilotCell(
                c.experiment,
                c.cell,
                unit,
                c.run_dir,
                pilot_dir,
                tuple(replay_dirs),
                chosen,
                folds=folds,
                noise_dirs=tuple(noise_dirs),
                noise_chosen=noise_chosen,
            )
        )
        if pilot_dir != c.run_dir and any(chosen.values()):
            played[str(out / pilot_dir)] = own
    settings = pilot.model_dump(mode="json")
    estimand = resolved_estimand(pilot, own) if cells else "realised"
    recorded = PilotPlan(str(path), settings, share, seed, tuple(planned), estimand=estimand)
    return recorded, replays, played


def _folds(
    folds: int, chosen: dict[str, list[str]], pilot_seed: int, study: RunConfig, unit: str
) -> dict[str, dict[str, int]]:
    """Per domain each chosen unit's cross-fitting fold (none where nothing is calibrated)."""
    if not folds:
        return {}
    if unit == "domain":
        raise ConfigError(
            "[pilot] calibrate_folds: a whole seed and domain is this study's unit, so no "
            "pilot unit can be held out within one; set calibrate_folds = 0"
        )
    return {
        d: unit_folds(keys, folds, pilot_seed, d, study.seed, unit) for d, keys in chosen.items()
    }


def noise_units(
    unit: str,
    chosen: dict[str, list[str]],
    requests: int,
    seeds: set[int],
    shares: tuple[float, float],
    pilot_seed: int,
    study: RunConfig,
) -> dict[str, list[str]]:
    """Per domain the pilot units its noise replays play: of ``shares`` (the pilot's, the
    noise replays' of it), that share of each stratum's chosen units (at least two), its
    smallest draws, so they are nested in the pilot's whatever allocated them; where a
    whole (seed, domain) is the unit, that share of the pilot's share of the seeds."""
    share, noise_share = shares
    if unit == "domain":
        return _chosen(unit, requests, seeds, share * noise_share, pilot_seed, study, FEWEST)
    return {
        d: sorted(
            chosen_units(
                keys, 0.0, pilot_seed, d, study.seed, unit, pilot_size(len(keys), noise_share)
            )
        )
        for d, keys in chosen.items()
    }


def _strata(unit: str, seeds: set[int], study: RunConfig) -> int:
    """Strata an experiment's pilot is drawn within: its seeds x domains, or where a whole
    (seed, domain) is the unit, its domains (each draws among its seeds)."""
    return len(study.domains) * (1 if unit == "domain" else len(seeds))


def _chosen(
    unit: str,
    requests: int,
    seeds: set[int],
    share: float,
    pilot_seed: int,
    study: RunConfig,
    fewest: int,
) -> dict[str, list[str]]:
    """Per domain the units a cell's pilot plays: a share of its units (``fewest`` at
    least), or where the unit is a whole (seed, domain), that domain if its seed is among a
    share of the seeds."""
    if unit == "domain":
        return {
            d: ["0"] if study.seed in chosen_seeds(seeds, share, pilot_seed, d, fewest) else []
            for d in study.domains
        }
    keys = unit_keys(unit, requests, study.episodes.users_per_profile)
    return {
        d: sorted(chosen_units(keys, share, pilot_seed, d, study.seed, unit, fewest))
        for d in study.domains
    }


def pilot_units(plan: PilotPlan, out: Path) -> dict[str, UnitChoice | None]:
    """Per pilot run directory (the pilot's and its noise replays') the units it plays;
    None (every unit) where cells of different units share one directory."""
    found: dict[str, UnitChoice | None] = {}
    for c in plan.cells:
        for played_dir, choice in c.played_dirs():
            run_dir = str(out / played_dir)
            if run_dir not in found:
                found[run_dir] = choice
                continue
            held = found[run_dir]
            if held is None or held.unit != choice.unit:
                found[run_dir] = None
                continue
            domains = set(held.chosen) | set(choice.chosen)
            found[run_dir] = UnitChoice(
                choice.unit,
                {
                    d: held.chosen.get(d, frozenset()) | choice.chosen.get(d, frozenset())
                    for d in domains
                },
            )
    return found
