"""What ``recmarket attack-search`` may vary of each attack family: its intensity, timing
and on/off periods, its targets, and the attackers' share, each a ``Dimension`` of the
family's ``SearchSpace`` (``SPACES``, one per built-in single attack but two: ``null``, the
attack switched off, and ``inject``, its own policy-only twin, whose gain over the twin, the
search's objective, is 0 by construction).

The share is a dimension like any other. For a family played by separate seats it is how
many of the benchmark's six seats attack (1 to 5, on the benchmark's seats: P4; P4 and P5;
P4 to P6; P3 to P6; P2 to P6, so the forgers' rival P1 stays honest). For an owner of Sybil
seats it is their number (2 to 11 of the market's seats, as the benchmark's axis). The
bounds are the parameters' own where they have them; where a parameter is unbounded (a
window, a round, a count of records) the bound is the largest the benchmark's market can
tell apart: a window or a sitting-out of at most 48 proposals or rounds (four learning
periods), a switch round within the full schedule's 300 rounds, at most 20 fake records a
time (four times the menu's five), at most 10 re-entries.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from recmarket.catalogue.attacks import ATTACKS

ATTACKERS = "attackers"  # the share dimension: seats that attack, or an owner's seats
SEATS_BY_SHARE = {
    1: ("P4",),
    2: ("P4", "P5"),
    3: ("P4", "P5", "P6"),
    4: ("P3", "P4", "P5", "P6"),
    5: ("P2", "P3", "P4", "P5", "P6"),
}
POLICIES = ("strict", "balanced", "exaggeration")


class Suggests(Protocol):
    """What a derivative-free optimiser's trial offers a dimension (Optuna's ``Trial``)."""

    def suggest_float(self, name: str, low: float, high: float) -> float:
        """A number between ``low`` and ``high``."""
        ...

    def suggest_int(self, name: str, low: int, high: int) -> int:
        """A whole number from ``low`` to ``high``."""
        ...

    def suggest_categorical(self, name: str, choices: Any) -> Any:
        """One of ``choices``."""
        ...


@dataclass(frozen=True)
class Dimension:
    """One searched parameter: a number between ``low`` and ``high`` (whole where
    ``whole``), or one of ``choices``."""

    name: str
    low: float = 0.0
    high: float = 1.0
    whole: bool = False
    choices: tuple[Any, ...] = ()

    def suggest(self, trial: Suggests) -> Any:
        """The trial's value of this dimension."""
        if self.choices:
            return trial.suggest_categorical(self.name, list(self.choices))
        if self.whole:
            return trial.suggest_int(self.name, int(self.low), int(self.high))
        return trial.suggest_float(self.name, self.low, self.high)


def _share(name: str = ATTACKERS) -> Dimension:
    return Dimension(name, 1, 5, whole=True)


@dataclass(frozen=True)
class SearchSpace:
    """An attack family's searched dimensions. ``owner``: the share is the number of seats
    one owner runs (its ``seats`` parameter), not the number of seats that attack."""

    attack: str
    dimensions: tuple[Dimension, ...]
    owner: bool = False

    def suggest(self, trial: Suggests) -> dict[str, Any]:
        """A point of the space: every dimension's value, by name."""
        return {d.name: d.suggest(trial) for d in self.dimensions}

    def attacks(self, point: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
        """The benchmark market's ``market.attacks`` for a point: the attack's parameters on
        every attacking seat, or on the owner's seat P4."""
        params = {k: v for k, v in point.items() if k != ATTACKERS}
        setting = {"attack": self.attack, "params": params}
        if self.owner:
            return {"P4": {"attack": self.attack, "params": {**params, "seats": point[ATTACKERS]}}}
        return {seat: setting for seat in SEATS_BY_SHARE[int(point[ATTACKERS])]}

    def point_of(self, attacks: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
        """The point a benchmark cell's ``market.attacks`` plays (its menu's default)."""
        defaults = ATTACKS.params(self.attack, {})
        params = dict(attacks["P4"].get("params", {}))
        share = params.pop("seats", getattr(defaults, "seats", 1)) if self.owner else len(attacks)
        point = {
            d.name: params.get(d.name, getattr(defaults, d.name))
            for d in self.dimensions
            if d.name != ATTACKERS
        }
        return {**point, ATTACKERS: share}


_POLICY = Dimension("policy", choices=(None, *POLICIES))  # None: its composition's
_SHARE = Dimension("share")  # a share of episodes or of proposals
_RIVAL = Dimension("rival", choices=(None, "P1"))
_WINDOW = Dimension("window", 1, 48, whole=True)
_BELOW = Dimension("below", 0.0, 0.5)

SPACES: dict[str, SearchSpace] = {
    s.attack: s
    for s in (
        SearchSpace("forge", (_POLICY, _SHARE, _RIVAL, _share())),
        SearchSpace("flood", (_POLICY, _SHARE, Dimension("records", 1, 20, whole=True), _share())),
        SearchSpace(
            "bait-and-switch",
            (
                Dimension("honest", choices=("strict", "balanced")),
                Dimension("then", choices=("balanced", "exaggeration")),
                Dimension("switch_round", 0, 300, whole=True),
                Dimension("oscillate", choices=(False, True)),
                _WINDOW,
                _BELOW,
                _share(),
            ),
        ),
        SearchSpace(
            "whitewash",
            (
                _POLICY,
                _WINDOW,
                _BELOW,
                Dimension("reentries", 0, 10, whole=True),
                Dimension("absent_rounds", 0, 48, whole=True),
                _share(),
            ),
        ),
        SearchSpace(
            "camouflage",
            (
                Dimension("honest", choices=("strict", "balanced")),
                Dimension("then", choices=("balanced", "exaggeration")),
                _SHARE,
                _share(),
            ),
        ),
        SearchSpace("sybil", (_POLICY, Dimension(ATTACKERS, 2, 11, whole=True)), owner=True),
        SearchSpace(
            "collude",
            (_POLICY, _SHARE, _RIVAL, Dimension(ATTACKERS, 2, 11, whole=True)),
            owner=True,
        ),
    )
}


def space_for(attack: str) -> SearchSpace:
    """The family's search space; ``ValueError`` naming the families that have one."""
    if attack not in SPACES:
        known = ", ".join(SPACES)
        raise ValueError(f"--attack {attack}: no search space for it; searchable: {known}")
    return SPACES[attack]
