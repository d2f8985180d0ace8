"""A pilot file: the tables that make the pilot backend (``[agents]``, ``[roles]`` and
``[llm]``) and a ``[pilot]`` table of how the pilot is played and read; everything else
comes from each study cell (run/pilot.py plans the pilot from it).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from recmarket.agents.llm.config import OFFLINE
from recmarket.config import RunConfig
from recmarket.config_file import ConfigError, merge, read_config_file
from recmarket.vocabulary import ROLES

# The pilot backend's own set of role draws; replays take 1 .. surrogate_replays - 1.
PILOT_DRAWS = 1_000_000
MOST_REPLAYS = 64
MOST_FOLDS = 10
# Pilot units each stratum of an interval holds at least, by default: at three a stratum a
# sparse contrast's interval covered 70% (issue 65); at eight and more the coverage study
# finds its label (docs/llm-valid.md).
MIN_UNITS_PER_STRATUM = 8
MOST_UNITS_PER_STRATUM = 10_000
# The pilot backend's noise replays take role draws NOISE_DRAWS + 1 .. noise_replays, apart
# from the surrogate's replays and the pilot's own play.
NOISE_DRAWS = 2_000_000


class PilotSettings(BaseModel):
    """The ``[pilot]`` table: whose role draws the pilot takes, and how many plays of a unit
    the surrogate's prediction averages."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    draws: Literal["own", "shared"] = Field(
        "own",
        description="own: role draws of the pilot's own, as any model has; shared: the "
        "surrogate's (a pilot identical to the surrogate then measures a bias of exactly 0)",
    )
    surrogate_replays: int = Field(
        4,
        ge=1,
        le=MOST_REPLAYS,
        description="plays of each unit by the surrogate whose mean is its prediction: the "
        "study's own and the rest with fresh role draws",
    )
    exact_choices: bool = Field(
        True,
        description="the surrogate's replays keep each decision's chances where its backend "
        "says them (RunConfig.record_choices), and its prediction takes every decision's "
        "expectation there instead of its one draw; the pilot's own choices stay as drawn",
    )
    calibrate_folds: int = Field(
        0,
        ge=0,
        le=MOST_FOLDS,
        description="0: the surrogate is the study's own; K >= 2: the surrogate is "
        "calibrated on the pilot, cross-fitted: for each of K folds of the pilot's units it "
        "is calibrated on the other folds and predicts this fold's units "
        "(run/pilot_folds.py)",
    )

    min_units_per_stratum: int = Field(
        MIN_UNITS_PER_STRATUM,
        ge=2,
        le=MOST_UNITS_PER_STRATUM,
        description="pilot units each stratum of an interval holds at least: seed x domain "
        "strata with fewer are merged, by domain and then into one pool, and an estimand "
        "with fewer even pooled gets no interval (analysis/ppi_strata.py)",
    )

    estimand: Literal["expected", "realised"] | None = Field(
        None,
        description="what an interval is for: expected, the pilot backend's behaviour over "
        "its own role draws (what a model at temperature > 0 does); realised, this one play "
        "of it; default: expected unless every role of the pilot backend is a model at "
        "temperature 0",
    )
    noise_replays: int = Field(
        2,
        ge=0,
        le=MOST_REPLAYS,
        description="for the expected estimand, plays of half the pilot's units (at least "
        "two a stratum) with fresh role draws: their spread within a unit is the draw noise "
        "an interval for the expected behaviour adds",
    )

    noise_share: float = Field(
        0.5,
        gt=0,
        le=1,
        description="the share of each stratum's pilot units the noise replays play (at "
        "least two): their spread within a unit is the draw noise, and half keeps the extra "
        "calls at half the pilot's a replay",
    )
    allocation: Literal["uniform", "neyman", "active"] = Field(
        "uniform",
        description="how the pilot's units are spread over its (seed, domain) strata: "
        "uniform, the same share of each; neyman, as many units in all, in proportion to "
        "each stratum's units times the surrogate's spread between them; active, as many "
        "in each stratum, drawn at chances that rise with the surrogate's replays' "
        "disagreement on the unit and weighted by one over them; the last two are set "
        "once the surrogate has played (run/pilot_allocation.py)",
    )

    @model_validator(mode="after")
    def _expected_needs_noise_replays(self) -> PilotSettings:
        if self.estimand == "expected" and self.noise_replays == 0:
            raise ValueError(
                "estimand = expected needs noise_replays >= 1: the draw noise it adds is "
                "measured on them"
            )
        return self

    @field_validator("calibrate_folds")
    @classmethod
    def _folds_are_two_or_more(cls, folds: int) -> int:
        if folds == 1:
            raise ValueError("cross-fitting needs at least 2 folds (0 calibrates nothing)")
        return folds


class PilotFile(BaseModel):
    """A pilot file: the pilot backend's tables and the ``[pilot]`` table, nothing else."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    pilot: PilotSettings = PilotSettings()
    agents: dict[str, Any] = {}
    roles: dict[str, Any] = {}
    llm: dict[str, Any] | None = None


def read_pilot_file(path: Path) -> PilotFile:
    """The pilot file, validated; a problem is one ConfigError naming the file and field."""
    data = read_config_file(path)
    try:
        return PilotFile.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(
            _problems(
                exc,
                path,
                "a pilot file holds [pilot], [agents], "
                "[roles] and [llm]; the rest comes from the study",
            )
        ) from None


def _problems(exc: ValidationError, path: Path, hint: str = "") -> str:
    said = [
        f"{'.'.join(map(str, e['loc']))} in {path}: {e['msg'].removeprefix('Value error, ')}"
        for e in exc.errors()
    ]
    return "; ".join(said) + (f" ({hint})" if hint else "")


def pilot_config(study: RunConfig, pilot: PilotFile, path: Path) -> RunConfig:
    """The cell as the pilot backend plays it: the study's settings, the pilot's tables
    over them, and the pilot's draws."""
    data = json.loads(study.model_dump_json())
    data["agents"] = merge(data["agents"], pilot.agents)
    data["roles"] = merge(data["roles"], pilot.roles)
    if pilot.llm is not None:
        data["llm"] = pilot.llm
    data["draws"] = 0 if pilot.pilot.draws == "shared" else PILOT_DRAWS
    try:
        return RunConfig.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(_problems(exc, path)) from None


def replay_configs(study: RunConfig, replays: int, exact_choices: bool) -> list[RunConfig]:
    """The surrogate's replays of a cell beyond the study's own play: fresh role draws, and
    the decisions' chances kept where ``exact_choices``."""
    update = {"record_choices": exact_choices}
    return [study.model_copy(update={**update, "draws": r}) for r in range(1, replays)]


def noise_configs(own: RunConfig, replays: int) -> list[RunConfig]:
    """The pilot backend's noise replays of a cell: its own settings with fresh role draws."""
    return [own.model_copy(update={"draws": NOISE_DRAWS + r}) for r in range(1, replays + 1)]


def resolved_estimand(pilot: PilotFile, own: RunConfig) -> str:
    """The estimand the pilot's intervals are for: as its file says, or expected unless
    every role of the pilot backend is a model at temperature 0 (the offline rules and a
    model at temperature > 0 draw, and their behaviour is what a result should hold for)
    or no noise replay measures the draw noise."""
    if pilot.pilot.estimand is not None:
        return pilot.pilot.estimand
    if not pilot.pilot.noise_replays:  # nothing measures the draw noise: this play
        return "realised"
    llm = own.llm
    if llm is None:
        return "expected"
    models = [llm.model_for(role) for role in ROLES]
    if OFFLINE in models or any(llm.models[m].temperature > 0 for m in models):
        return "expected"
    return "realised"
