"""The pilot as a study's add-on (``run/addons.py``): the surrogate's replays played offline
beside the study's cells, the pilot backend's cells on their chosen units only, the pilot
recorded in ``pilot.json`` before anything plays, and, where the pilot calibrates the
surrogate on folds, the cross-fitted surrogates played once the pilot is done. Where the
pilot allocates by the surrogate's spread, its units are chosen again once the surrogate
has played and before the pilot does."""

from __future__ import annotations

from pathlib import Path

from recmarket.config import RunConfig
from recmarket.run.addons import AddedCells
from recmarket.run.pilot import (
    PILOT,
    PilotAsked,
    PilotPlan,
    pilot_units,
    plan_pilot,
)
from recmarket.run.pilot_allocation import ALLOCATIONS
from recmarket.run.pilot_cost import pilot_plays
from recmarket.run.pilot_folds import FoldCalibrator, cross_fitted
from recmarket.run.pilot_record import read_pilot, write_pilot
from recmarket.run.study_plan import PlannedCell
from recmarket.run.unit_choice import UnitChoice


class PilotAddOn:
    """A pilot beside a study, asked by ``asked``; ``calibrate`` fits the surrogate on a
    fold's complement (handed in by the study layer, which reaches the calibration). It
    keeps what ``plan`` chose for ``record`` and ``after_play``."""

    def __init__(self, asked: PilotAsked, calibrate: FoldCalibrator) -> None:
        self.asked, self.calibrate = asked, calibrate
        self._plan: PilotPlan | None = None
        self._played: dict[str, RunConfig] = {}

    @property
    def planned(self) -> PilotPlan:
        """What ``plan`` chose (an error before it is called)."""
        if self._plan is None:
            raise RuntimeError("the pilot is not planned yet: call plan first")
        return self._plan

    def plan(
        self, cells: list[PlannedCell], configs: dict[str, RunConfig], out: Path
    ) -> AddedCells:
        """The surrogate's replays and the pilot backend's cells, on their units."""
        asked = self.asked
        self._plan, replays, self._played = plan_pilot(
            cells, configs, out, asked.path, asked.share, asked.seed
        )
        self._plan.refuse_undoing(read_pilot(out), out / PILOT)
        return AddedCells(replays, self._played, pilot_units(self._plan, out))

    def record(self, out: Path) -> int:
        """``pilot.json``, grown from an earlier pilot of the directory; the episodes the
        pilot's cells hold once played."""
        write_pilot(out, self.planned.grown_from(read_pilot(out)))
        return sum(pilot_plays(self.planned, self._played, out).values())

    def allocate(self, configs: dict[str, RunConfig], out: Path) -> dict[str, UnitChoice | None]:
        """Once the surrogate has played: the pilot's units as its allocation spreads them
        (run/pilot_allocation.py), recorded in ``pilot.json`` before the pilot plays."""
        allocated = ALLOCATIONS[self.planned.allocation].allocated(self.planned, configs, out)
        if allocated == self.planned:
            return {}
        self._plan = allocated
        write_pilot(out, allocated.grown_from(read_pilot(out)))
        return pilot_units(allocated, out)

    def after_play(self, configs: dict[str, RunConfig], out: Path) -> dict[str, RunConfig]:
        """The cross-fitted surrogates' cells, where the pilot calibrates on folds."""
        if not self.planned.folds:
            return {}
        return cross_fitted(self.planned, configs, out, self.calibrate)
