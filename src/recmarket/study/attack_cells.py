"""The reputation benchmark's market as an attack search plays it: the benchmark's cell of a
point's attacks under one defence, cut as the benchmark's schedule cuts it, and the point's
policy-only twin on the same schedule, paired episode for episode, read as the attackers'
gain over the twin (``study.attack_search``).

A cell's run lives where a reproduce of the benchmark keeps it (``run.study_plan``), so a
search inside the benchmark's own directory reads the cells the benchmark played.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from recmarket.analysis.attacks import attackers, gain
from recmarket.analysis.benchmark import twin_attacks
from recmarket.analysis.bootstrap import Interval, Row
from recmarket.config import RunConfig
from recmarket.experiments.schedule import TWIN, Schedule
from recmarket.experiments.spec import CellSpec, ExperimentSpec, load_spec
from recmarket.experiments.units import coarsest, memory_unit
from recmarket.report.data import compact_rows
from recmarket.run.store import RunStore
from recmarket.run.study_plan import cell_dir as study_cell_dir

BENCHMARK = "reputation-benchmark"


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
        """The cell of ``attacks`` and its twin on ``seeds``; a ``ValueError`` where the
        attack is its own twin (its gain over it is 0 by construction)."""
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
