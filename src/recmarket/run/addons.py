"""What a study plays beside its own cells, behind one small interface, so that
``reproduce`` plays a study without knowing what its add-ons are.

An add-on (a pilot: ``run/pilot_addon.py``) plans its cells from the study's, records
itself beside the study's plan before anything plays, and may ask for more offline cells
once everything else is played (cross-fitted surrogates). Which add-ons a study has is the
study layer's choice (``recmarket.study``), which can reach what they need from above the
run layer (the calibration a pilot's folds are fitted with).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from recmarket.config import RunConfig
from recmarket.run.study_plan import PlannedCell
from recmarket.run.unit_choice import UnitChoice


@dataclass(frozen=True)
class AddedCells:
    """An add-on's cells, by run directory: those played offline beside the study's, and
    those its backend answers (an LLM's), each on its ``units`` (None: every episode)."""

    offline: dict[str, RunConfig] = field(default_factory=dict)
    answered: dict[str, RunConfig] = field(default_factory=dict)
    units: dict[str, UnitChoice | None] = field(default_factory=dict)


class StudyAddOn(Protocol):
    """Something a study plays beside its cells. Its methods are called in this order, once
    each: ``plan``, ``record``, ``allocate``, then ``after_play``."""

    def plan(
        self, cells: list[PlannedCell], configs: dict[str, RunConfig], out: Path
    ) -> AddedCells:
        """Its cells, from the study's (refusing here what cannot be played: nothing has
        been written yet)."""
        ...

    def record(self, out: Path) -> int:
        """Write its own record beside the study's plan; the episodes its answered cells
        will hold once played (the progress bar's share)."""
        ...

    def allocate(self, configs: dict[str, RunConfig], out: Path) -> dict[str, UnitChoice | None]:
        """Once the offline cells are played and before the answered ones: the units its
        answered cells play where the offline plays decide them, by run directory (none:
        as planned)."""
        ...

    def after_play(self, configs: dict[str, RunConfig], out: Path) -> dict[str, RunConfig]:
        """Once every cell is played (``configs``: the study's and the added offline
        ones): more cells to play offline, by run directory (none: an empty table)."""
        ...
