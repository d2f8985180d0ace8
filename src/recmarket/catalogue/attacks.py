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
  itself is the defence. Each fake record comes from a fresh fake account (pseudonyms are
  free), so a defence that weighs writers by their track record meets a newcomer each time.
- **flood**: forges ``records`` High records for itself each time it forges, to push honest
  records out of a window and outnumber them in any count.
- **collude**: a Sybil owner whose seats forge for each other: each time it forges, a fake
  High record for every seat it owns and, with ``rival``, a Low one for that seat.
- **camouflage**: mostly honest (``honest``), presenting a share ``share`` of its
  proposals as ``then``, each by a keyed draw of the episode: exaggeration diluted below
  what its records can show.

Every attack says how its *policy-only twin* presents (``presents``): the seat presenting
as the attack presents, with no re-entry, switching, forging or extra seats, so that the
attack's gain over that twin is what gaming the records (or the market) adds beyond the
behaviour itself. An attack that is nothing but its presentation (inject; null) is its own
twin.

Another package adds an attack under the ``recmarket.attacks`` entry-point group (read
under its older name ``recmarket.behaviours`` too, with a warning): an ``Attack`` whose
``strategy`` builds the seat's ``PlatformStrategy``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

import numpy as np
from pydantic import BaseModel, Field

from recmarket.catalogue.attack_conduct import BaitAndSwitch, Camouflage, Whitewash
from recmarket.catalogue.attack_params import (
    AttackParams,
    BaitParams,
    CamouflageParams,
    CollusionParams,
    FloodParams,
    ForgeParams,
    InjectParams,
    SybilParams,
    WhitewashParams,
)
from recmarket.catalogue.policies import injecting
from recmarket.catalogue.registry import NameIn, Registry, VariantSetting
from recmarket.catalogue.strategies import Arm, FixedPresentation, PlatformStrategy


@dataclass(frozen=True)
class Forgery:
    """Fake-user records one seat writes after a share of episodes: ``praise`` High records
    for itself (for every seat it owns where ``owned``), and, optionally, a complaint about
    a rival seat."""

    share: float
    rival: str | None
    praise: int = 1
    owned: bool = False


@dataclass(frozen=True)
class Attack:
    """A registered attack. ``strategy(policy, params)`` builds the seat's conduct from
    its composition's policy and the attack's validated ``Params``; ``copies`` is the
    number of Sybil seats it adds; ``forgery`` the fake records it writes (None: none);
    ``presents`` how its policy-only twin presents. ``adaptive``: whether its conduct
    depends on what it observes (its seats' choices are then recorded and learnt in
    periods)."""

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

    def presents(self, policy: str, params: Any) -> str:
        """The policy its policy-only twin presents (the seat's composition ``policy``
        where it presents as that): a null seat presenting so, with nothing else."""
        return str(params.policy or policy)

    def is_its_presentation(self) -> bool:
        """Whether the attack is nothing but how it presents (its twin is itself, and its
        gain over the twin 0 by construction)."""
        return False


@dataclass(frozen=True)
class BaitAndSwitchAttack(Attack):
    """The bait-and-switch attack; its twin exaggerates throughout (the gain over it is
    what timing the switch adds)."""

    Params: type[BaseModel] = BaitParams

    def strategy(self, policy: str, params: Any) -> PlatformStrategy:
        return BaitAndSwitch(params)

    def presents(self, policy: str, params: Any) -> str:
        return str(params.then)


@dataclass(frozen=True)
class CamouflageAttack(Attack):
    """The camouflage attack; its twin presents as ``then`` throughout (the gain over it is
    what diluting the behaviour adds)."""

    Params: type[BaseModel] = CamouflageParams

    def strategy(self, policy: str, params: Any) -> PlatformStrategy:
        return Camouflage(params)

    def presents(self, policy: str, params: Any) -> str:
        return str(params.then)


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
        return FixedPresentation(Arm(self.presents(policy, params)))

    def presents(self, policy: str, params: Any) -> str:
        return injecting(params.family) if params.family else policy

    def is_its_presentation(self) -> bool:
        return True


@dataclass(frozen=True)
class ForgeAttack(Attack):
    """The forging attack: its own presentation, and fake records after a share of
    episodes."""

    Params: type[BaseModel] = ForgeParams

    def forgery(self, params: Any) -> Forgery | None:
        """The fake records it writes, if its share is above zero."""
        return Forgery(params.share, params.rival) if params.share > 0 else None


@dataclass(frozen=True)
class FloodAttack(Attack):
    """The flooding attack: its own presentation, and many fake records at a time."""

    Params: type[BaseModel] = FloodParams

    def forgery(self, params: Any) -> Forgery | None:
        """The fake records it writes, if it writes any."""
        if params.share <= 0 or params.records == 0:
            return None
        return Forgery(params.share, None, praise=params.records)


@dataclass(frozen=True)
class CollusionAttack(SybilAttack):
    """The colluding attack: Sybil seats that forge for each other."""

    Params: type[BaseModel] = CollusionParams

    def forgery(self, params: Any) -> Forgery | None:
        """The fake records its owner writes for all its seats, if its share is above 0."""
        return Forgery(params.share, params.rival, owned=True) if params.share > 0 else None


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
ATTACKS.register(FloodAttack("flood"))
ATTACKS.register(CollusionAttack("collude"))
ATTACKS.register(CamouflageAttack("camouflage"))

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
