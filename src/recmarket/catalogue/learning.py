"""How an adaptive platform learns which presentation to use (Section 5.2).

A platform sees only its own proposals' fate: whether the user agent shortlisted it, ranked
it first, and whether the user bought it. Before each proposal it chooses an arm (a
presentation policy, or a policy and a claim intensity) with a bandit rule, and after the
episode it is told the reward of the arm it played. Two standard rules:

- **Thompson sampling** (Thompson 1933; Chapelle and Li 2011) with a Beta prior per arm
  (Beta(1, 1) unless ``alpha`` and ``beta`` say otherwise) and rewards in [0, 1] treated as
  fractional successes. It assumes the reward of an
  arm is stationary, which reputation makes only roughly true: the choice to study.
- **EXP3** (Auer et al. 2002), the adversarial-bandit rule, for when the environment
  reacts to the learner (reputation records answer the platform's own past claims).
  Exploration ``gamma`` defaults to 0.1.

A learner's state is a function of the (arm, reward) pairs it was told, in order, and each
choice draws from the episode's own keyed generator, so a resumed, replayed or distributed
run rebuilds the state from the stored pairs and chooses exactly as the first run did.

Rules are registered objects (``LEARNING_RULES``) with their parameters' model; another
package adds one, a bandit or a rule-based strategy that ignores its generator, under the
``recmarket.learning_rules`` entry-point group (``recmarket.strategies``, its older name,
is still read), and ``market.learning = { rule = "exp3", params = { gamma = 0.2 } }`` (or
the older ``market.learning_rule``) names it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, Protocol

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from recmarket.catalogue.registry import NameIn, NoParams, Registry, VariantSetting

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
    """One platform's learner over its arms."""

    arms: Sequence[str]

    def choose(self, rng: np.random.Generator) -> int:
        """The arm to play next.

        Args: ``rng``, the episode's generator for this platform (draw from nothing else).
        Returns: an index into ``arms``. Raises: nothing."""
        ...

    def update(self, arm: int, reward: float) -> None:
        """Learn that ``arm`` (an index) earned ``reward`` in [0, 1]. Raises: nothing."""
        ...


class ThompsonParams(BaseModel):
    """Thompson sampling's Beta prior per arm."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    alpha: float = Field(1.0, gt=0.0, le=1e3, description="prior successes per arm")
    beta: float = Field(1.0, gt=0.0, le=1e3, description="prior failures per arm")


class Exp3Params(BaseModel):
    """EXP3's share of uniform exploration."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    gamma: float = Field(0.1, gt=0.0, le=1.0, description="share of uniform exploration")


@dataclass
class ThompsonSampling:
    """Beta posterior per arm; play the arm whose posterior draw is highest."""

    arms: Sequence[str]
    prior: ThompsonParams = field(default_factory=ThompsonParams)
    alpha: np.ndarray = field(init=False)
    beta: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        self.alpha = np.full(len(self.arms), self.prior.alpha)
        self.beta = np.full(len(self.arms), self.prior.beta)

    def choose(self, rng: np.random.Generator) -> int:
        # Arm by arm: the same draws as rng.beta(alpha, beta), without the checks of its
        # array arguments that took half its time (a choice per adaptive seat an episode).
        pairs = zip(self.alpha.tolist(), self.beta.tolist(), strict=True)
        drawn = [rng.beta(a, b) for a, b in pairs]
        return drawn.index(max(drawn))

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
        """Each arm's chance: the exponential weights mixed with uniform exploration."""
        weights = np.exp(self.log_weights - self.log_weights.max())
        return (1 - self.gamma) * weights / weights.sum() + self.gamma / len(self.arms)

    def choose(self, rng: np.random.Generator) -> int:
        return int(rng.choice(len(self.arms), p=self.probabilities()))

    def update(self, arm: int, reward: float) -> None:
        estimate = reward / self.probabilities()[arm]
        self.log_weights[arm] += self.gamma * estimate / len(self.arms)


@dataclass(frozen=True)
class LearningRule:
    """How an adaptive platform chooses: ``make(arms, params)`` gives a fresh learner over
    the named arms with the rule's validated parameters (a ``Params`` instance)."""

    name: str
    make: Callable[[Sequence[str], Any], Learner]
    Params: type[BaseModel] = NoParams


def probe(rule: LearningRule, params: BaseModel) -> None:
    """The contract, checked with the rule's parameters: a learner over three arms chooses
    an arm index, takes a reward, and chooses again."""
    made = rule.make(("a", "b", "c"), params)
    gen = np.random.default_rng(0)
    for _ in range(2):
        arm = made.choose(gen)
        if not isinstance(arm, int | np.integer) or not 0 <= arm < 3:
            raise ValueError(f"choose gave {arm!r}; it must be an arm index in [0, 3)")
        made.update(int(arm), 1.0)


LEARNING_RULES: Registry[LearningRule] = Registry(
    "learning rule",
    "recmarket.learning_rules",
    LearningRule,
    lambda r: r.name,
    probe,
    aliases=("recmarket.strategies",),  # the group's older name, read still
)
LEARNING_RULES.register(
    LearningRule("thompson", lambda arms, p: ThompsonSampling(arms, p), ThompsonParams)
)
LEARNING_RULES.register(LearningRule("exp3", lambda arms, p: Exp3(arms, p.gamma), Exp3Params))


# A learning rule's name in a setting: any registered rule.
LearningRuleName = Annotated[str, NameIn(LEARNING_RULES)]


class LearningSetting(VariantSetting):
    """``[market.learning]``: a learning rule and its parameters."""

    REGISTRY = LEARNING_RULES
    KEY = "rule"
    rule: LearningRuleName = Field("thompson", description="a registered learning rule")


def learner(
    setting: LearningSetting, arms: Sequence[str], history: Iterable[tuple[int, float]] = ()
) -> Learner:
    """A fresh learner of the setting's rule that has been told ``history``, in order."""
    made = LEARNING_RULES.get(setting.rule).make(arms, setting.built())
    for arm, value in history:
        made.update(arm, value)
    return made
