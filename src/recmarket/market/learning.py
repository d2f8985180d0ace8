"""How an adaptive platform learns which presentation to use (issue 12, Section 5.2).

A platform sees only its own proposals' fate: whether the user agent shortlisted it, ranked
it first, and whether the user bought it. Before each proposal it chooses an arm (a
presentation policy, or a policy and a claim intensity) with a bandit rule, and after the
episode it is told the reward of the arm it played. Two standard rules:

- **Thompson sampling** (Thompson 1933; Chapelle and Li 2011) with a Beta(1, 1) prior per
  arm and rewards in [0, 1] treated as fractional successes. It assumes the reward of an
  arm is stationary, which reputation makes only roughly true: the choice to study.
- **EXP3** (Auer et al. 2002), the adversarial-bandit rule, for when the environment
  reacts to the learner (reputation records answer the platform's own past claims).
  Exploration ``gamma`` defaults to 0.1.

A learner's state is a function of the (arm, reward) pairs it was told, in order, and each
choice draws from the episode's own keyed generator, so a resumed, replayed or distributed
run rebuilds the state from the stored pairs and chooses exactly as the first run did.

Rules are registered objects (``LEARNING_RULES``); another package adds one, a bandit or a
rule-based strategy that ignores its generator, under the ``recmarket.strategies``
entry-point group, and ``market.learning_rule`` names it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Literal, Protocol

import numpy as np
from pydantic import AfterValidator

from recmarket.registry import Registry

RewardKind = Literal["top1", "purchase", "mix"]


@dataclass(frozen=True)
class Observation:
    """What a platform observes of one of its proposals."""

    shortlisted: bool
    top1: bool
    bought: bool


def reward(seen: Observation, kind: RewardKind, top1_weight: float = 0.5) -> float:
    """The reward in [0, 1]: being ranked first (attention), being bought (revenue), or a
    mix weighted ``top1_weight`` towards attention."""
    if kind == "top1":
        return float(seen.top1)
    if kind == "purchase":
        return float(seen.bought)
    return top1_weight * seen.top1 + (1 - top1_weight) * seen.bought


class Learner(Protocol):
    arms: Sequence[str]

    def choose(self, rng: np.random.Generator) -> int: ...

    def update(self, arm: int, reward: float) -> None: ...


@dataclass
class ThompsonSampling:
    """Beta posterior per arm; play the arm whose posterior draw is highest."""

    arms: Sequence[str]
    alpha: np.ndarray = field(init=False)
    beta: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        self.alpha = np.ones(len(self.arms))
        self.beta = np.ones(len(self.arms))

    def choose(self, rng: np.random.Generator) -> int:
        return int(np.argmax(rng.beta(self.alpha, self.beta)))

    def update(self, arm: int, reward: float) -> None:
        self.alpha[arm] += reward
        self.beta[arm] += 1.0 - reward


@dataclass
class Exp3:
    """Exponential weights over arms, mixed with ``gamma`` uniform exploration; the played
    arm's reward is divided by its probability, so the update is unbiased."""

    arms: Sequence[str]
    gamma: float = 0.1
    log_weights: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        if not 0 < self.gamma <= 1:
            raise ValueError(f"gamma must be in (0, 1], not {self.gamma}")
        self.log_weights = np.zeros(len(self.arms))

    def probabilities(self) -> np.ndarray:
        weights = np.exp(self.log_weights - self.log_weights.max())
        return (1 - self.gamma) * weights / weights.sum() + self.gamma / len(self.arms)

    def choose(self, rng: np.random.Generator) -> int:
        return int(rng.choice(len(self.arms), p=self.probabilities()))

    def update(self, arm: int, reward: float) -> None:
        estimate = reward / self.probabilities()[arm]
        self.log_weights[arm] += self.gamma * estimate / len(self.arms)


@dataclass(frozen=True)
class LearningRule:
    """How an adaptive platform chooses: ``make`` gives a fresh learner over the named
    arms (a ``Learner``: ``choose(rng) -> arm index``, ``update(arm, reward)``)."""

    name: str
    make: Callable[[Sequence[str]], Learner]


LEARNING_RULES: Registry[LearningRule] = Registry(
    "learning rule", "recmarket.strategies", LearningRule, lambda r: r.name
)
LEARNING_RULES.register(LearningRule("thompson", ThompsonSampling))
LEARNING_RULES.register(LearningRule("exp3", Exp3))


# A learning rule's name in a setting: any registered rule.
LearningRuleName = Annotated[str, AfterValidator(LEARNING_RULES.known)]


def learner(rule: str, arms: Sequence[str], history: Iterable[tuple[int, float]] = ()) -> Learner:
    """A fresh learner of ``rule`` that has been told ``history``, in order."""
    made = LEARNING_RULES.get(rule).make(arms)
    for arm, value in history:
        made.update(arm, value)
    return made
