"""Experiment specs: a named set of treatment cells over the same requests.

A spec file (TOML) holds a name, a description, the default episodes per domain and cell,
optional domains, a ``[base]`` table of RunConfig settings every cell shares, and
``[[cells]]``, each a name plus RunConfig overrides (``requests`` may override the
episodes). Users copy a file, edit it, and pass the path wherever a name is accepted.

Cells may also come from a grid, as mesa's ``batch_run`` crosses its parameters: ``[axes]``
maps settings paths (``condition``, ``"market.rho"``) to lists of values, and every listed
cell (or the base alone, without cells) is crossed with every point of the grid; ``seeds``
replicates every cell once per seed (``recmarket reproduce --seeds N`` gives every spec that
names none N seeds). An axis whose values are named tables, ``defence = [{ name = "shared-
decay", settings = { reputation_scope = "shared", ... } }, ...]``, varies several settings
together under one label: its key is then a label, not a settings path. Expanded cells are
named by their part, their axis values and their seed (``equal/rho=0.1/seed=2``); the report
pools the replications of a cell (``recmarket.report.data``).

A cell's run directory is keyed by its configuration hash, so cells that two experiments
share (the equal NoRep market of the opening and the accountability experiment, say) run
once, and a rerun skips every finished cell.
"""

from __future__ import annotations

import math
import tomllib
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from recmarket.catalogue.attack_spaces import SPACES, space_for
from recmarket.config import RunConfig
from recmarket.config_file import ConfigError, described, merge, refuse_deep
from recmarket.experiments.schedule import ROUNDS, TWIN, Schedule

DEFAULT_SEEDS = 3  # replicates of every cell: verdicts rest on intervals over seeds
# The experiments of the paper's own matrix (Appendix A.1), the rest being beyond it: what
# its cost is quoted for ("about 918,000 LLM calls" at the prompts of its time).
PAPER_MATRIX = (
    "accountability",
    "catalog-assignment",
    "catalog-overlap",
    "homogeneous-signaling",
    "market-expansion",
    "market-opening",
    "model-sensitivity",
    "reputation-scope",
    "shortlist-capacity",
)


class CellSpec(BaseModel):
    """One cell of an experiment: its name, its settings over the spec's base, and its own
    episode count if it has one."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    requests: int | None = Field(None, ge=1, description="episodes per domain, if not the spec's")
    settings: dict[str, Any] = Field(default_factory=dict, description="RunConfig overrides")


def _nested(path: str, value: Any) -> dict[str, Any]:
    """``"market.rho", 0.1`` as ``{"market": {"rho": 0.1}}``."""
    *parents, leaf = path.split(".")
    tree: dict[str, Any] = {leaf: value}
    for part in reversed(parents):
        tree = {part: tree}
    return tree


def _named(value: Any) -> bool:
    """Whether an axis value is a named table of settings."""
    return isinstance(value, dict) and set(value) == {"name", "settings"}


def _label(value: Any) -> str:
    return str(value["name"]) if _named(value) else str(value)


def _point(path: str, value: Any) -> dict[str, Any]:
    """The settings one axis value sets: a named table's own, else ``path`` = ``value``."""
    return dict(value["settings"]) if _named(value) else _nested(path, value)


class SpecPilot(BaseModel):
    """A spec's ``[pilot]`` table: ``reproduce --pilot FILE --pilot-share S --pilot-seed K``
    written down with the study (docs/llm-valid.md). ``file`` is read relative to the spec."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    file: str = Field(description="the pilot file: [pilot], [agents], [roles] and [llm] tables")
    share: float = Field(gt=0, le=1, description="the share of the study's units it plays")
    seed: int = Field(0, ge=0, description="seed of the pilot's unit draws")


class SpecSearch(BaseModel):
    """A spec's ``[search]`` table: each attack family's worst case under each of the spec's
    defences, searched beside the study whenever it is reproduced
    (``study.benchmark_search``). ``budget`` is the trials a family and defence get at full
    scale; ``--scale`` cuts it as it cuts the schedule, never below the menu's one trial."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    budget: int = Field(ge=1, description="trials per attack family and defence at full scale")
    families: tuple[str, ...] = Field(
        (), description="attack families searched (none: every one with a search space)"
    )
    seed: int = Field(0, ge=0, description="seed of the optimiser's draws")

    @field_validator("families")
    @classmethod
    def _searchable(cls, families: tuple[str, ...]) -> tuple[str, ...]:
        for family in families:
            space_for(family)  # names the families that have a space
        return families

    def searched(self) -> tuple[str, ...]:
        """The families searched, in the catalogue's order where none are named."""
        return self.families or tuple(SPACES)

    def trials(self, scale: float) -> int:
        """The trials a family and defence get at ``scale``."""
        return max(1, math.ceil(self.budget * scale - 1e-9))


class ExperimentSpec(BaseModel):
    """One experiment: named cells of settings over a base configuration, grid axes, the
    figure it feeds, seeds (``load_spec`` reads one; ``expanded`` gives every cell)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    description: str
    figure: str = ""
    requests: int = Field(ge=1, description="episodes per domain and cell (Table 1 rounds)")
    domains: tuple[str, ...] | None = None
    base: dict[str, Any] = Field(default_factory=dict)
    cells: tuple[CellSpec, ...] = ()
    axes: dict[str, list[Any]] = Field(
        default_factory=dict, description="settings path -> values, crossed with the cells"
    )
    seeds: tuple[int, ...] = Field((), description="replicate every cell once per seed")
    pilot: SpecPilot | None = Field(
        None, description="a pilot beside the study, played whenever the spec is reproduced"
    )
    search: SpecSearch | None = Field(
        None, description="each attack family's worst case under each defence, by search"
    )
    in_every: bool = Field(
        True,
        description="whether a bare `recmarket reproduce` runs it; a study of its own size "
        "(the reputation benchmark) runs when named",
    )

    @model_validator(mode="after")
    def _has_cells(self) -> ExperimentSpec:
        if not self.cells and not self.axes:
            raise ValueError("a spec needs [[cells]], [axes], or both")
        for path, values in self.axes.items():
            if not values:
                raise ValueError(f"axes.{path}: an axis needs at least one value")
            named = [_named(v) for v in values]
            if any(named) and not all(named):
                raise ValueError(
                    f"axes.{path}: give every value as {{ name, settings }} or none of them"
                )
        if len(set(self.seeds)) != len(self.seeds):
            raise ValueError(f"seeds: {list(self.seeds)} repeats a seed")
        if self.search is not None:
            self._searchable()
        return self

    def _searchable(self) -> None:
        """A search starts from each family's menu cell (``FAMILY@1``) under each defence
        of the ``defence`` axis: both must be there."""
        if not self.axes.get("defence") or not all(_named(v) for v in self.axes["defence"]):
            raise ValueError("search: a search needs the named defences of an axes.defence")
        names, searched = (
            {c.name for c in self.cells},
            self.search.searched() if self.search else (),
        )
        missing = [f"{f}@1" for f in searched if f"{f}@1" not in names]
        if missing:
            raise ValueError(f"search: no menu cell {', '.join(missing)} to start from")

    def replicated(self, n: int, first: int) -> ExperimentSpec:
        """The spec with every cell run at ``n`` seeds from ``first`` (first, first + 1, ...),
        unless it names its own seeds; one seed leaves it unreplicated."""
        if self.seeds or n <= 1:
            return self
        return self.model_copy(update={"seeds": tuple(range(first, first + n))})

    def expanded(self) -> list[CellSpec]:
        """Every cell after crossing the listed cells (or the base alone) with the grid of
        the axes and the seeds, in that order."""
        parts = list(self.cells) or [CellSpec(name="")]
        points: list[tuple[str, dict[str, Any]]] = [("", {})]
        for path, values in self.axes.items():
            label = path.split(".")[-1]
            points = [
                (f"{name}/{label}={_label(value)}".strip("/"), merge(settings, _point(path, value)))
                for name, settings in points
                for value in values
            ]
        seeds: list[tuple[str, dict[str, Any]]] = [
            (f"seed={seed}", {"seed": seed}) for seed in self.seeds
        ] or [("", {})]
        return [
            CellSpec(
                name="/".join(n for n in (part.name, point, seed) if n),
                requests=part.requests,
                settings=merge(merge(part.settings, point_settings), seed_settings),
            )
            for part in parts
            for point, point_settings in points
            for seed, seed_settings in seeds
        ]

    def configs(
        self,
        scale: float = 1.0,
        overrides: dict[str, Any] | None = None,
        schedule: Schedule | None = None,
    ) -> list[tuple[str, RunConfig]]:
        """(cell name, validated RunConfig) for every expanded cell, its schedule scaled by
        ``scale`` as ``Schedule`` says (breadth first where users remember; a cell without
        memory beside both kinds of memory is played on both schedules, its copy among
        the users who remember named with ``TWIN``). ``schedule``: a larger study's, whose
        cells these are (an attack search's trial, cut as the benchmark cuts its cells)."""
        full = [(cell, self._config(cell, overrides or {}, {})) for cell in self.expanded()]
        schedule = schedule or self.schedule(scale, [c for _, c in full])
        out = []
        for cell, cfg in full:
            cuts = schedule.cuts(cfg)
            for cut in cuts:
                kept = self.seeds[: schedule.seeds_of(cut)]
                if kept != self.seeds and cell.settings.get("seed") not in kept:
                    continue  # a seed the scale cut
                name = f"{cell.name}/{TWIN}" if cut == ROUNDS and len(cuts) > 1 else cell.name
                cut_settings = self._cut(schedule, cfg, cut)
                out.append((name, self._config(cell, overrides or {}, cut_settings)))
        return out

    @staticmethod
    def _cut(schedule: Schedule, cfg: RunConfig, cut: str) -> dict[str, Any]:
        """The settings that cut ``cfg`` (at full scale) to ``schedule``; entrants join after
        the same share of the rounds, so that an entrant enters at the same point of a
        scaled run."""
        requests = schedule.requests(cfg, cut)
        if requests == cfg.episodes.requests:
            return {}
        episodes = {"requests": requests, "users_per_profile": schedule.users_of(cfg, cut)}
        if not cfg.market.entrants:
            return {"episodes": episodes}
        ratio = requests / cfg.episodes.requests
        entrants = [f"{e.plays}@{round(e.after_rounds * ratio)}" for e in cfg.market.entrants]
        return {"episodes": episodes, "market": {"entrants": entrants}}

    def schedule(
        self,
        scale: float,
        full: list[RunConfig] | None = None,
        overrides: dict[str, Any] | None = None,
    ) -> Schedule:
        """How ``scale`` cuts this spec (``full``: its cells' configs at full scale, else
        made with ``overrides``)."""
        if full is None:
            full = [self._config(cell, overrides or {}, {}) for cell in self.expanded()]
        return Schedule.of(full, max(1, len(self.seeds)), scale)

    def _config(self, cell: CellSpec, overrides: dict[str, Any], cut: dict[str, Any]) -> RunConfig:
        data = merge(merge(self.base, cell.settings), overrides)
        data = merge(data, {"episodes": {"requests": cell.requests or self.requests}})
        data = merge(data, cut)
        if self.domains is not None:
            data.setdefault("domains", list(self.domains))
        try:
            return RunConfig.model_validate(data)
        except ValidationError as exc:
            raise ConfigError(
                f"experiment {self.name}, cell {cell.name}: {described(exc)}"
            ) from None


def _builtin_dir() -> Any:
    return resources.files("recmarket.experiments").joinpath("specs")


def builtin_names() -> list[str]:
    """The names of the built-in experiments, sorted."""
    return sorted(
        p.name.removesuffix(".toml") for p in _builtin_dir().iterdir() if p.name.endswith(".toml")
    )


def every_names() -> list[str]:
    """The built-in experiments a bare ``recmarket reproduce`` runs, sorted."""
    return [name for name in builtin_names() if load_spec(name).in_every]


def load_spec(name_or_path: str) -> ExperimentSpec:
    """A built-in experiment by name, or a spec file by path."""
    path = Path(name_or_path)
    if path.suffix == ".toml" and path.is_file():
        text, where = path.read_text(), str(path)
    elif name_or_path in builtin_names():
        text = _builtin_dir().joinpath(f"{name_or_path}.toml").read_text()
        where = f"built-in {name_or_path}"
    else:
        raise ConfigError(
            f"unknown experiment {name_or_path!r}; built in: "
            f"{', '.join(builtin_names())}, or give a .toml spec file"
        )
    try:
        data = tomllib.loads(text)
        refuse_deep(data, where)
        spec = ExperimentSpec.model_validate(data)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{where}: {exc}") from None
    except ValidationError as exc:
        raise ConfigError(f"{where}: {described(exc)}") from None
    except RecursionError:  # the parser recurses once per level of arrays and tables
        raise ConfigError(f"{where}: nested too deeply to be an experiment") from None
    if spec.pilot is not None and path.is_file():  # its file where the spec's folder has it
        found = str(path.parent / spec.pilot.file)
        spec = spec.model_copy(update={"pilot": spec.pilot.model_copy(update={"file": found})})
    return spec
