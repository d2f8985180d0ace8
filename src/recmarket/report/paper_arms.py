"""The paper's numbers as ``paper_numbers.toml`` lists them, and the cells each is measured on.

A number names its cells by the settings that single them out in their experiment, never by
the labels specs give them. Below full scale a cell without memory may be played twice (once
beside users who remember, on their schedule), so the arms of a contrast are the copies that
hold the same requests; where none do, the number is not paired rather than not run.
"""

from __future__ import annotations

import itertools
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, model_validator

from recmarket.analysis.market_measures import MARKET_MEASURES
from recmarket.config import RunConfig
from recmarket.report.data import Cell

NUMBERS = Path(__file__).with_name("paper_numbers.toml")
Statistic = Literal["level", "difference", "ratio", "magnitude", "spread"]
Kind = Literal["protocol", "design", "emergent"]


class PaperNumber(BaseModel):
    """One number the paper reports, with where, what it measures, its kind and how to
    compute ours: the statistic of a registered measure (shown at "paper"), at its
    parameters, over the number's cells."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    section: str
    what: str
    paper: float
    statistic: Statistic
    about: bool = False  # the paper gives the number only in words
    tolerance: float = 0.0  # a magnitude's bound: |cell - base| within it agrees
    kind: Kind | None = None  # what produces a contrast (levels have none)
    basis: str = ""  # the protocol fact or the named assumption behind its kind
    experiment: str | None = None  # None: no counterpart in the offline model
    # Cells by the settings that single them out in their experiment ("market.rho" = 1.0)
    cell: dict[str, Any] | None = None
    base: dict[str, Any] | None = None
    cells: tuple[dict[str, Any], ...] = ()
    measure: str | None = None  # a measure shown at "paper" (None: no counterpart)
    params: dict[str, Any] = {}  # the measure's parameters, checked against its model
    # The paper's own 95% interval, where it gives one, and the line it is typed from.
    paper_interval: tuple[float, float] | None = None
    source: str = ""

    @model_validator(mode="after")
    def _complete(self) -> PaperNumber:
        if self.paper_interval is not None:
            low, high = self.paper_interval
            if not (low <= self.paper <= high and self.source):
                raise ValueError(
                    f"{self.what!r}: the paper's interval must hold its value and name its "
                    "source line"
                )
        if self.measure is not None:
            found = MARKET_MEASURES.get(self.measure)
            if "paper" not in found.shown:
                raise ValueError(f"{self.what!r}: measure {self.measure!r} is not shown at paper")
            MARKET_MEASURES.params(self.measure, self.params)
        if self.statistic != "level" and self.experiment is not None and self.kind is None:
            raise ValueError(f"{self.what!r}: a measured contrast needs a kind")
        if self.kind == "design" and not self.basis:
            raise ValueError(f"{self.what!r}: a design contrast names its assumption (basis)")
        if self.statistic in ("difference", "ratio") and self.paper == float(
            self.statistic == "ratio"
        ):
            raise ValueError(f"{self.what!r}: no direction to judge; state it as a magnitude")
        if self.statistic == "magnitude" and self.tolerance <= 0:
            raise ValueError(f"{self.what!r}: a magnitude needs its bound (tolerance > 0)")
        return self


def paper_numbers(path: Path = NUMBERS) -> list[PaperNumber]:
    """The paper's numbers, as the table that ships with recmarket lists them."""
    return [PaperNumber(**entry) for entry in tomllib.loads(path.read_text())["number"]]


def _setting(config: RunConfig, path: str) -> Any:
    value: Any = config
    for part in path.split("."):
        value = getattr(value, part)
    return value


def cells_with(members: dict[str, Cell], settings: dict[str, Any]) -> list[Cell]:
    """The experiment's cells with these settings."""
    return [
        c
        for c in members.values()
        if all(_setting(c.config, path) == value for path, value in settings.items())
    ]


def cell_with(members: dict[str, Cell], settings: dict[str, Any]) -> Cell | None:
    """The experiment's cell with these settings (None when the run has none, or several)."""
    found = cells_with(members, settings)
    return found[0] if len(found) == 1 else None


def _wanted(number: PaperNumber) -> list[dict[str, Any]]:
    """The settings of each cell a number is measured on, base first."""
    if number.statistic == "spread":
        return list(number.cells)
    return [w for w in (number.base, number.cell) if w is not None]


def arms_of(number: PaperNumber, cells: dict[str, dict[str, Cell]]) -> list[Cell] | None:
    """The cells a number is measured on, in order (base first), or None where any was not
    run (or the number has no counterpart). Arms hold the same requests: below full scale a
    cell without memory may be played twice, once beside users who remember on fewer seeds
    (experiments/schedule.py), and each arm takes the copy its partners were played with,
    the one with more seeds (then episodes) where either would do."""
    members = cells.get(number.experiment or "", {})
    wanted = _wanted(number)
    if number.measure is None or not wanted:
        return None
    paired = [
        list(arms)
        for arms in itertools.product(*(cells_with(members, w) for w in wanted))
        if all(a.config.episodes == arms[0].config.episodes for a in arms)
    ]

    def breadth(arms: list[Cell]) -> tuple[int, int]:
        return min(len(a.seeds) for a in arms), min(len(a.rows) for a in arms)

    most = max(map(breadth, paired), default=None)
    found = [arms for arms in paired if breadth(arms) == most]
    return found[0] if len(found) == 1 else None


def unpaired(number: PaperNumber, cells: dict[str, dict[str, Cell]]) -> bool:
    """Whether every arm of the number was run, but on other requests than the rest (a
    scaled run cuts a user's own memory and a domain's apart), so none pairs."""
    members = cells.get(number.experiment or "", {})
    wanted = _wanted(number)
    return (
        number.measure is not None
        and bool(wanted)
        and all(cells_with(members, w) for w in wanted)
        and arms_of(number, cells) is None
    )
