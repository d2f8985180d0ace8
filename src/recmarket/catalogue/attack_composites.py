"""Composite attacks: two registered attacks played by one seat, named by joining theirs
(``attack = "sybil+camouflage"``), each part with its own parameters under its own name
(``params = { sybil = { seats = 4 }, camouflage = { share = 0.5 } }``). Zhang et al.
(IFIPTM 2012) test Sybil+Camouflage and Sybil+Whitewashing beside the single attacks; a
trust model robust to each part may not be robust to both.

One declared rule says what the seat does each round:

- **presentation**: the part with a conduct of its own (one that decides the seat's
  presentation round by round: bait-and-switch, whitewash, camouflage, or an installed one
  that builds its own strategy) decides it. At most one part may have one: two conducts
  deciding one seat's presentation would need a rule between them, which no source gives.
  Where neither has one, the seat presents as the first part presents (the second's where
  the first presents as its composition does).
- **seats**: the owner runs the larger of the parts' seat counts (the Sybil's).
- **fake records**: a part that forges writes its records. Where both do, the seat forges
  after the larger share of episodes, the larger number of High records each time, for
  every seat it owns where either part praises them all, and against the first part's
  rival (else the second's).
- **its policy-only twin** presents as the composite presents, as a single attack's twin
  does; a composite of two presentations alone (inject with a null) is its own twin.
- it is adaptive where either part is.

A part switched off (a Sybil of one seat, a camouflage of share 0, a forge of share 0, or
null) leaves the other part alone; both switched off leave the honest seat.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, create_model

from recmarket.catalogue.attacks import Attack, Forgery
from recmarket.catalogue.strategies import Arm, FixedPresentation, PlatformStrategy

JOIN = "+"


class CompositeParams(BaseModel):
    """The parameters of a composite: one table a part (``first`` and ``second``, named in
    the settings by the parts' own names)."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    first: Any
    second: Any

    @property
    def rival(self) -> str | None:
        """The seat the composite damns, as the rule says (the market checks it)."""
        return getattr(self.first, "rival", None) or getattr(self.second, "rival", None)


def has_conduct(attack: Attack) -> bool:
    """Whether the attack decides its seat's presentation round by round (it builds a
    strategy of its own, not its fixed presentation)."""
    return type(attack).strategy is not Attack.strategy


def _params_model(first: Attack, second: Attack) -> type[CompositeParams]:
    """The composite's parameter model: each part's own model under the part's name."""
    return create_model(
        f"Params_{first.name}_{second.name}".replace("-", "_"),
        __base__=CompositeParams,
        first=(first.Params, Field(default_factory=first.Params, alias=first.name)),
        second=(second.Params, Field(default_factory=second.Params, alias=second.name)),
    )


def _merged(a: Forgery | None, b: Forgery | None) -> Forgery | None:
    """The fake records of two parts, by the rule: either's alone, or both at the larger
    share and praise, owned where either is, against the first rival."""
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
    """Two attacks played by one seat, by the module's rule."""

    first: Attack = Attack("null")
    second: Attack = Attack("null")

    @classmethod
    def of(cls, first: Attack, second: Attack) -> CompositeAttack:
        """The composite of two registered attacks; ``ValueError`` where the rule cannot
        combine them."""
        if first.name == second.name:
            raise ValueError(f"a composite needs two different attacks, not {first.name} twice")
        if has_conduct(first) and has_conduct(second):
            raise ValueError(
                f"{first.name} and {second.name} both decide the seat's presentation round by "
                "round; combine one of them with an attack that does not (sybil, forge, "
                "flood, collude, inject, null)"
            )
        return cls(
            f"{first.name}{JOIN}{second.name}",
            adaptive=first.adaptive or second.adaptive,
            Params=_params_model(first, second),
            first=first,
            second=second,
        )

    def _conduct(self, params: Any) -> tuple[Attack, Any]:
        """The part that decides the presentation, and its parameters."""
        if has_conduct(self.second):
            return self.second, params.second
        return self.first, params.first

    def strategy(self, policy: str, params: Any) -> PlatformStrategy:
        part, own = self._conduct(params)
        if has_conduct(part):
            return part.strategy(policy, own)
        return FixedPresentation(Arm(self.presents(policy, params)))

    def presents(self, policy: str, params: Any) -> str:
        part, own = self._conduct(params)
        if has_conduct(part):
            return part.presents(policy, own)
        first = self.first.presents(policy, params.first)
        return first if first != policy else self.second.presents(policy, params.second)

    def copies(self, params: Any) -> int:
        return max(self.first.copies(params.first), self.second.copies(params.second))

    def forgery(self, params: Any) -> Forgery | None:
        return _merged(self.first.forgery(params.first), self.second.forgery(params.second))

    def is_its_presentation(self) -> bool:
        return self.first.is_its_presentation() and self.second.is_its_presentation()
