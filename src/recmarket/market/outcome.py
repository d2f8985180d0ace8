"""What one episode produced: its proposals, what was shown, the decision, the record, and
every role call in order. Metrics and the run store read it."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from recmarket.agents.contracts import (
    Contract,
    Decision,
    Listing,
    Query,
    ReputationRecord,
    RoleFailure,
    StructuredNeed,
)
from recmarket.catalogue.conditions import condition
from recmarket.data.episodes import Request
from recmarket.vocabulary import Condition, RoleName


@dataclass(slots=True, eq=False)
class Call:
    """One role call of an episode, logged when it is made; its answer is filled in when
    it comes (market/asker.py), so concurrent calls keep the order they were made in."""

    role: RoleName
    input: Contract
    output: Contract | None = None  # None: no answer (the role failed; its attempts are
    # in the LLM store), or not yet


@dataclass(frozen=True)
class Proposal:
    """One platform's proposal in an episode: the seat, its policy, the item, whether it was
    forced in, the explanation and the name it shows; where its seat rewrites listings, the
    listing it wrote (None: the item's own) and the words it added that the item does not
    support."""

    platform_id: str  # the seat: what shares and lessons are counted by
    policy: str
    item_index: int
    forced: bool
    explanation: str
    identity: str = ""  # the name it shows, if not the seat's (a whitewasher's new one)
    rewriting: bool = False  # its seat plays a copy strategy (market.copy)
    listing: Listing | None = None
    unsupported: int = 0

    @property
    def shown_as(self) -> str:
        """The name the user agent, the user and the records know it by."""
        return self.identity or self.platform_id


@dataclass(frozen=True)
class TargetFit:
    """The target's standing in its pool by noiseless judged fit (market.metrics.target_fit)."""

    rank: int  # 1: strictly the best fit; one more for every other item at least as close
    gap: float | None  # distance to the nearest other item's fit; None: the only item


@dataclass
class Outcome:
    """Everything one episode produced, filled stage by stage, for metrics and the store.
    A role failure stops the episode where it happened; what came before is kept."""

    request: Request
    condition: Condition
    target: int
    query: Query | None = None
    need: StructuredNeed | None = None
    search_vector: np.ndarray | None = None  # the need as platforms search with it
    pool: list[Proposal] = field(default_factory=list)
    shown: list[Proposal] = field(default_factory=list)  # displayed order
    reasons: dict[str, str] = field(default_factory=dict)  # user agent reason per platform
    decision: Decision | None = None
    # every answer the decision could have given (an option id, or None) with its chance,
    # where its backend says (agents.contracts.ChoiceChances); the drawn one is ``decision``
    chances: list[tuple[str | None, float]] | None = None
    record: ReputationRecord | None = None
    calls: list[Call] = field(default_factory=list)
    target_fit: TargetFit | None = None  # set with the pool: see metrics.target_fit
    target_top1_mask: str | None = None  # set with the pool: see market.belief_grid
    # each pooled item's worth to the user, set when the episode ends where a judge
    # measures it (market.metrics.item_worth); None before the decision
    worth: dict[int, float] | None = None
    choices: dict[str, str] = field(default_factory=dict)  # adaptive platform -> arm played
    lessons: dict[str, tuple[str, float | None]] = field(default_factory=dict)  # arm, reward
    identities: dict[str, str] = field(default_factory=dict)  # seat -> its new name, if any
    # records written after the episode besides the purchase's own, in order: (name, label,
    # note, source), source "forged" (a fake user's) or "oracle" (from the held-out target)
    written: list[tuple[str, str, str, str]] = field(default_factory=list)
    failed_role: RoleName | None = None
    failure: str | None = None

    def fail(self, failure: RoleFailure) -> Outcome:
        """Mark the episode as ended by a role's failure."""
        self.failed_role, self.failure = failure.role, failure.reason
        return self

    @property
    def regret(self) -> float | None:
        """The user's loss against the best proposal on offer: the best pooled item's worth
        less the bought one's (nothing bought: nothing gained); None where the worth was not
        measured."""
        if self.worth is None:
            return None
        bought = self.purchased
        return max(self.worth.values()) - (self.worth[bought.item_index] if bought else 0.0)

    @property
    def purchased(self) -> Proposal | None:
        """The proposal bought, if any."""
        chosen = self.decision.option_id if self.decision is not None else None
        return None if chosen is None else self.shown[self.option_ids().index(chosen)]

    def option_ids(self) -> list[str]:
        """The ids the decision's options carry (with their rank under platform-centric
        access)."""
        if not condition(self.condition).user_agent:
            return [f"{p.shown_as}#{rank}" for rank, p in enumerate(self.shown, start=1)]
        return [p.shown_as for p in self.shown]
