"""Composite attacks: two registered attacks played by one seat, named by joining theirs
(``attack = "sybil+camouflage"``), each part's parameters under the part's name
(``params = { sybil = { seats = 4 }, camouflage = { share = 0.5 } }``). Zhang et al.
(IFIPTM 2012) test Sybil+Camouflage and Sybil+Whitewashing beside the single attacks: a
trust model robust to each part alone may not be robust to both.

Any two registered attacks combine (``ATTACKS.compose``); three are built in (``BUILT_IN``).
One declared rule says what the seat does each round:

- **presentation**: the part with a conduct of its own (one that chooses the seat's
  presentation round by round: bait-and-switch, whitewash, camouflage, or an installed
  attack that builds its own strategy) chooses it. At most one part may have one: two
  conducts choosing one seat's presentation would need a rule between them, which no source
  gives. Where neither has one, the seat presents as the first part presents, or as the
  second does where the first presents as its composition says.
- **seats**: the owner runs the larger of the parts' seat counts (the Sybil's).
- **fake records**: a part that forges writes its records. Where both do, the seat forges
  after the larger share of episodes, the larger number of High records each time, for
  every seat it owns where either part praises them all, against the first part's rival
  (else the second's).
- **its policy-only twin** presents as the composite presents, as a single attack's twin
  does; a composite of two presentations alone is its own twin.
- it reacts to what it observes where either part does.

A part switched off (a Sybil of one seat, a camouflage or forge of share 0, null) leaves
the other part alone, and both switched off leave the honest seat.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, create_model

from recmarket.catalogue.attacks import ATTACKS, Attack, Forgery
from recmarket.catalogue.strategies import Arm, FixedPresentation, PlatformStrategy

JOIN = "+"
BUILT_IN = (("sybil", "camouflage"), ("sybil", "whitewash"), ("collude", "flood"))


class CompositeParams(BaseModel):
    """The parameters of a composite: one field a part, named by the part (a hyphen read
    as an underscore), in the parts' order."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    @property
    def parts(self) -> tuple[Any, Any]:
        """Each part's own parameters."""
        first, second = (getattr(self, name) for name in type(self).model_fields)
        return first, second

    @property
    def rival(self) -> str | None:
        """The seat the composite damns, by the rule (the market checks it is a seat)."""
        first, second = self.parts
        return getattr(first, "rival", None) or getattr(second, "rival", None)


def has_conduct(attack: Attack) -> bool:
    """Whether the attack chooses its seat's presentation round by round (it builds a
    strategy of its own rather than its fixed presentation)."""
    return type(attack).strategy is not Attack.strategy


def _params_model(first: Attack, second: Attack) -> type[CompositeParams]:
    """The composite's parameter model: each part's own model under the part's name."""
    fields: dict[str, Any] = {
        part.name.replace("-", "_"): (
            part.Params,
            Field(default_factory=part.Params, alias=part.name),
        )
        for part in (first, second)
    }
    name = f"{first.name}{JOIN}{second.name} params"
    return create_model(name, __base__=CompositeParams, **fields)


def _merged(a: Forgery | None, b: Forgery | None) -> Forgery | None:
    """Two parts' fake records by the rule: either's alone; both at the larger share and
    praise, for every owned seat where either praises them, against the first rival."""
    if a is None or b is None:
        return a or b
    return Forgery(
        share=max(a.share, b.share),
        rival=a.rival or b.rival,
        praise=max(a.praise, b.praise),
        owned=a.owned or b.owned,
    )


@dataclass(frozen=True)
class CompositeAttack(Attack):
    """Two attacks played by one seat, by the module's rule (``of`` builds one)."""

    parts: tuple[Attack, ...] = field(default=())

    @classmethod
    def of(cls, first: Attack, second: Attack) -> CompositeAttack:
        """The composite of two attacks; ``ValueError`` where the rule cannot combine them."""
        if isinstance(first, CompositeAttack) or isinstance(second, CompositeAttack):
            raise ValueError("a composite joins two attacks, each a single one")
        if first.name == second.name:
            raise ValueError(f"a composite joins two different attacks, not {first.name} twice")
        if has_conduct(first) and has_conduct(second):
            raise ValueError(
                f"{first.name} and {second.name} both choose the seat's presentation round by "
                "round; join one of them with an attack that does not (sybil, forge, flood, "
                "collude, inject, null)"
            )
        return cls(
            f"{first.name}{JOIN}{second.name}",
            adaptive=first.adaptive or second.adaptive,
            Params=_params_model(first, second),
            parts=(first, second),
        )

    def _conduct(self, params: Any) -> tuple[Attack, Any] | None:
        """The part that chooses the presentation round by round, with its parameters."""
        for part, own in zip(self.parts, params.parts, strict=True):
            if has_conduct(part):
                return part, own
        return None

    def strategy(self, policy: str, params: Any) -> PlatformStrategy:
        if (conduct := self._conduct(params)) is not None:
            return conduct[0].strategy(policy, conduct[1])
        return FixedPresentation(Arm(self.presents(policy, params)))

    def presents(self, policy: str, params: Any) -> str:
        if (conduct := self._conduct(params)) is not None:
            return conduct[0].presents(policy, conduct[1])
        pairs = zip(self.parts, params.parts, strict=True)
        shown = [part.presents(policy, own) for part, own in pairs]
        return next((p for p in shown if p != policy), policy)

    def copies(self, params: Any) -> int:
        return max(part.copies(own) for part, own in zip(self.parts, params.parts, strict=True))

    def forgery(self, params: Any) -> Forgery | None:
        first, second = (
            part.forgery(own) for part, own in zip(self.parts, params.parts, strict=True)
        )
        return _merged(first, second)

    def is_its_presentation(self) -> bool:
        return all(part.is_its_presentation() for part in self.parts)


def composite_named(name: str) -> CompositeAttack | None:
    """The composite a joined name (``"sybil+camouflage"``) names, its parts looked up as
    any attack is; None for a name that joins nothing."""
    if JOIN not in name:
        return None
    first, _, second = name.partition(JOIN)
    return CompositeAttack.of(ATTACKS.get(first), ATTACKS.get(second))


ATTACKS.compose = composite_named
for _first, _second in BUILT_IN:
    ATTACKS.register(CompositeAttack.of(ATTACKS.get(_first), ATTACKS.get(_second)))
