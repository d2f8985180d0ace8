"""Attacks: what a platform does against the reputation records (Sec. 5.2).

A seat named in ``market.attacks`` (``P4 = { attack = "whitewash", params = {...} }``)
plays one of these instead of its platform strategy, on the offline and the LLM path alike.
Each sees only what a platform can see: its own proposals' fate (its reward, as adaptive
platforms learn it: ``market.reward``, the Top-1 position by default), the round, and what
it writes itself; never a user's private memory. What each assumes:

- **null**: the seat presents as its composition says. It is the attack switched off, so
  its records equal the honest cell's, and its gain is 0 by construction: a check of the
  pairing, not a finding.
- **bait-and-switch**: presents honestly (``honest``) until a trigger, round ``switch_round``
  or ``switch_after`` rewarded proposals, then ``then``; with ``oscillate``, it returns to
  honesty while its reward over its last ``window`` proposals is below ``below``, and
  switches back once it recovers. Checked at each learning period's end, as every adaptive
  choice is.
- **whitewash**: presents as ``policy``; when its reward over its last ``window`` proposals
  falls below ``below`` it leaves and re-enters under a fresh name (``P4-2``, ``P4-3``, ...)
  with the same catalog and no history, at most ``reentries`` times, sitting out
  ``absent_rounds`` rounds each time (the cost of a new identity).
- **sybil**: one owner runs ``seats`` seats (the named one and ``seats - 1`` more after the
  incumbents) that share its catalog and its presentation; shares count per seat and per
  owner.
- **inject**: presents as its composition says (Strict, for the experiment's seat) with a
  sentence aimed at the user agent appended, of one payload family (``family``: authority,
  social-proof, basic, strong, or an installed one; ``recmarket.payloads``). An LLM user
  agent reads it as it will; the offline one is swayed by
  ``agents.ranker.injection_susceptibility``, a stated design assumption that fixes the sign
  of the offline result in advance.
- **forge**: after a share ``share`` of episodes, writes a fake user's High record for
  itself (and, with ``rival``, a Low one for that seat) into the memory set of the
  episode's user. Only a scope whose sets strangers write into (``style``, ``shared``)
  takes it: under ``local`` a platform cannot write into a user's memory, so the scope
  itself is the defence.

Another package adds an attack under the ``recmarket.attacks`` entry-point group (read
under its older name ``recmarket.behaviours`` too, with a warning): an ``Attack`` whose
``strategy`` builds the seat's ``PlatformStrategy``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Annotated, Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from recmarket.catalogue.payloads import PayloadFamilyName
from recmarket.catalogue.policies import PolicyName, injecting
from recmarket.catalogue.registry import NameIn, Registry, VariantSetting
from recmarket.catalogue.strategies import Arm, FixedPresentation, PlatformStrategy


class AttackParams(BaseModel):
    """The parameters every attack takes: the presentation it uses."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    policy: PolicyName | None = Field(
        None, description="the presentation it uses (default: its composition's)"
    )


class BaitParams(BaseModel):
    """Bait-and-switch: honest until a round or a number of rewarded proposals, then the
    other policy; with ``oscillate``, honest again when caught and back when recovered."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    honest: PolicyName = "strict"
    then: PolicyName = "exaggeration"
    switch_round: int | None = Field(None, ge=0, description="switch from this round on")
    switch_after: int | None = Field(None, ge=0, description="switch after this many rewards")
    oscillate: bool = False
    window: int = Field(24, ge=1, le=1_000_000, description="proposals its reward is averaged over")
    below: float = Field(0.1, ge=0.0, le=1.0, description="reward that counts as caught")


class WhitewashParams(AttackParams):
    """Whitewashing: when its recent reward falls below a level, the seat re-enters under a
    fresh identity (with no records), up to a number of times, sitting out some rounds
    each time."""

    policy: PolicyName | None = "exaggeration"
    window: int = Field(24, ge=1, le=1_000_000, description="proposals its reward is averaged over")
    below: float = Field(0.1, ge=0.0, le=1.0, description="reward that makes it re-enter")
    reentries: int = Field(5, ge=0, le=1000, description="fresh identities it may take")
    absent_rounds: int = Field(0, ge=0, description="rounds it sits out at each re-entry")


class SybilParams(AttackParams):
    """Sybils: the owner runs several seats of the same conduct."""

    seats: int = Field(3, ge=1, le=50, description="seats the owner runs (1: no Sybils)")


class InjectParams(BaseModel):
    """Injection: the seat's explanations carry a payload aimed at the user agent."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    family: PayloadFamilyName | None = Field(
        "strong", description="the payload family (None: no payload, the seat as it is)"
    )


class ForgeParams(AttackParams):
    """Forgery: after a share of episodes the seat writes a fake-user High record for itself
    and, optionally, a Low one for a rival."""

    share: float = Field(0.3, ge=0.0, le=1.0, description="share of episodes it forges after")
    rival: str | None = Field(None, description="a seat it damns with a fake Low record")


@dataclass(frozen=True)
class Forgery:
    """Fake-user records one seat writes: after a share of episodes, praise for itself
    and, optionally, a complaint about a rival seat."""

    share: float
    rival: str | None


@dataclass(frozen=True)
class Attack:
    """A registered attack. ``strategy(policy, params)`` builds the seat's conduct from
    its composition's policy and the attack's validated ``Params``; ``copies`` is the
    number of Sybil seats it adds; ``forgery`` the fake records it writes (None: none).
    ``adaptive``: whether its conduct depends on what it observes (its seats' choices are
    then recorded and learnt in periods)."""

    name: str
    adaptive: bool = False
    Params: type[BaseModel] = AttackParams

    def strategy(self, policy: str, params: Any) -> PlatformStrategy:
        """Args: the seat's composition policy, the validated parameters. Returns: the
        seat's ``PlatformStrategy``. Raises: nothing for valid parameters."""
        return FixedPresentation(Arm(params.policy or policy))

    def copies(self, params: Any) -> int:
        """The Sybil seats it adds (none but for Sybils)."""
        return 0

    def forgery(self, params: Any) -> Forgery | None:
        """The fake records it writes (None: none)."""
        return None


class Recent:
    """A platform's rewards over its last ``window`` proposals."""

    def __init__(self, window: int) -> None:
        self.rewards: deque[float] = deque(maxlen=window)

    def add(self, reward: float) -> None:
        """Count one proposal's reward."""
        self.rewards.append(reward)

    @property
    def full(self) -> bool:
        """Whether the window holds ``window`` rewards."""
        return len(self.rewards) == self.rewards.maxlen

    def below(self, level: float) -> bool:
        """Whether a full window averages below ``level``."""
        return self.full and float(np.mean(self.rewards)) < level

    def clear(self) -> None:
        """Forget every reward (a fresh start after a switch or a re-entry)."""
        self.rewards.clear()


@dataclass
class BaitAndSwitch:
    """A bait-and-switch seat's conduct: the honest policy, then the other once triggered
    (and back and forth under ``oscillate``)."""

    params: BaitParams
    adaptive: bool = field(default=True, init=False)

    def __post_init__(self) -> None:
        self.switched, self.triggered, self.rewarded = False, False, 0
        self.recent = Recent(self.params.window)

    def choose(self, draw: Callable[[], np.random.Generator]) -> Arm:
        return Arm(self.params.then if self.switched else self.params.honest)

    def observe(self, arm: str, reward: float) -> None:
        self.rewarded += reward > 0
        self.recent.add(reward)

    def period_ended(self, next_order: int) -> None:
        p = self.params
        if not self.triggered:
            by_round = p.switch_round is not None and next_order >= p.switch_round
            by_reward = p.switch_after is not None and self.rewarded >= p.switch_after
            self.triggered = self.switched = by_round or by_reward
            if self.switched:
                self.recent.clear()
        elif (
            p.oscillate
            and self.switched == self.recent.below(p.below)
            and (self.switched or self.recent.full)
        ):
            # caught (switched, reward low): honest again; recovered (honest, a full
            # window at or above the level): switch back
            self.switched = not self.switched
            self.recent.clear()

    def identity(self, seat: str) -> str:
        return seat

    def present(self, order: int) -> bool:
        return True


@dataclass
class Whitewash:
    """A whitewashing seat's conduct: one policy, and a fresh identity each time its recent
    reward falls below the level."""

    params: WhitewashParams
    policy: str
    adaptive: bool = field(default=True, init=False)

    def __post_init__(self) -> None:
        self.generation, self.absent_until = 0, 0
        self.recent = Recent(self.params.window)

    def choose(self, draw: Callable[[], np.random.Generator]) -> Arm:
        return Arm(self.policy)

    def observe(self, arm: str, reward: float) -> None:
        self.recent.add(reward)

    def period_ended(self, next_order: int) -> None:
        p = self.params
        if self.generation < p.reentries and self.recent.below(p.below):
            self.generation += 1
            self.absent_until = next_order + p.absent_rounds
            self.recent.clear()

    def identity(self, seat: str) -> str:
        return seat if self.generation == 0 else f"{seat}-{self.generation + 1}"

    def present(self, order: int) -> bool:
        return order >= self.absent_until


@dataclass(frozen=True)
class BaitAndSwitchAttack(Attack):
    """The bait-and-switch attack."""

    Params: type[BaseModel] = BaitParams

    def strategy(self, policy: str, params: Any) -> PlatformStrategy:
        return BaitAndSwitch(params)


@dataclass(frozen=True)
class WhitewashAttack(Attack):
    """The whitewashing attack."""

    Params: type[BaseModel] = WhitewashParams

    def strategy(self, policy: str, params: Any) -> PlatformStrategy:
        return Whitewash(params, params.policy or policy)


@dataclass(frozen=True)
class SybilAttack(Attack):
    """The Sybil attack: one conduct, several seats."""

    Params: type[BaseModel] = SybilParams

    def copies(self, params: Any) -> int:
        """The extra seats: all the owner's seats but the first."""
        return int(params.seats) - 1


@dataclass(frozen=True)
class InjectAttack(Attack):
    """The injecting attack: a fixed presentation whose explanations carry a payload."""

    Params: type[BaseModel] = InjectParams

    def strategy(self, policy: str, params: Any) -> PlatformStrategy:
        return FixedPresentation(Arm(injecting(params.family) if params.family else policy))


@dataclass(frozen=True)
class ForgeAttack(Attack):
    """The forging attack: its own presentation, and fake records after a share of
    episodes."""

    Params: type[BaseModel] = ForgeParams

    def forgery(self, params: Any) -> Forgery | None:
        """The fake records it writes, if its share is above zero."""
        return Forgery(params.share, params.rival) if params.share > 0 else None


def probe(attack: Attack, params: BaseModel) -> None:
    """The contract, checked with the parameters: a strategy that chooses an arm and takes
    a lesson, a count of copies of at least 0."""
    made = attack.strategy("strict", params)
    arm = made.choose(lambda: np.random.default_rng(0))
    if not isinstance(arm, Arm):
        raise ValueError(f"its strategy chose {arm!r}, not an Arm")
    if made.adaptive:
        made.observe(arm.name, 1.0)
        made.period_ended(1)
    if attack.copies(params) < 0:
        raise ValueError("copies must be at least 0")


ATTACKS: Registry[Attack] = Registry(
    "attack",
    "recmarket.attacks",
    Attack,
    lambda a: a.name,
    probe,
    aliases=("recmarket.behaviours",),  # the group's older name, read still
)
ATTACKS.register(Attack("null"))
ATTACKS.register(BaitAndSwitchAttack("bait-and-switch", adaptive=True))
ATTACKS.register(WhitewashAttack("whitewash", adaptive=True))
ATTACKS.register(SybilAttack("sybil"))
ATTACKS.register(ForgeAttack("forge"))
ATTACKS.register(InjectAttack("inject"))

AttackName = Annotated[str, NameIn(ATTACKS)]


class AttackSetting(VariantSetting):
    """A seat's attack with its parameters: ``{ attack = "forge", params = {...} }``."""

    REGISTRY = ATTACKS
    KEY = "attack"
    attack: AttackName = Field(description="a registered attack")

    @property
    def made(self) -> Attack:
        """The registered attack the setting names."""
        return ATTACKS.get(self.attack)
