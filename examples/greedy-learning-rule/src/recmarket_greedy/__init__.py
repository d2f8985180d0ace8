"""A rule-based learning rule for adaptive platforms: play the arm (a policy at an
intensity) whose proposals earned the best mean reward so far, taking an untried arm to
have earned ``untried``. With ``untried`` above any reward (the default, 2), every arm is
tried once, in order, before the rule settles; with it at 0, a platform keeps to the first
arm that earned anything. It draws nothing, so it ignores the generator it is given."""

from __future__ import annotations

from dataclasses import dataclass, field

from pydantic import BaseModel, ConfigDict, Field

from recmarket.catalogue.learning import LearningRule


@dataclass
class Greedy:
    """One platform's learner: each arm's total reward and count, told in order."""

    arms: tuple[str, ...]
    untried: float
    totals: list[float] = field(init=False)
    counts: list[int] = field(init=False)

    def __post_init__(self) -> None:
        self.totals, self.counts = [0.0] * len(self.arms), [0] * len(self.arms)

    def choose(self, rng: object) -> int:
        """The arm with the best mean so far (the first of equals)."""
        means = [
            t / c if c else self.untried for t, c in zip(self.totals, self.counts, strict=True)
        ]
        return means.index(max(means))

    def update(self, arm: int, reward: float) -> None:
        """Count one proposal's reward for the arm it was made with."""
        self.totals[arm] += reward
        self.counts[arm] += 1


class GreedyParams(BaseModel):
    """The rule's one parameter."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    untried: float = Field(
        2.0, ge=0.0, le=10.0, description="the mean an untried arm is taken to have"
    )


GREEDY = LearningRule(
    "greedy", lambda arms, params: Greedy(tuple(arms), params.untried), GreedyParams
)
