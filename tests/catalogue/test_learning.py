"""The adaptive platforms' learning rules, on reward tables whose best arm is known."""

import json
from pathlib import Path

import numpy as np
import pytest

from recmarket.catalogue.learning import (
    LearningSetting,
    Observation,
    ThompsonSampling,
    learner,
    reward,
)
from recmarket.run.store import RunStore
from tests.plugins import dist_info, recmarket

ARMS = ("strict", "balanced", "exaggeration")


def play(rule: str, means: tuple[float, ...], rounds: int, seed: int) -> list[int]:
    """Bernoulli rewards with the given means; the arms chosen, in order."""
    rng = np.random.default_rng(seed)
    made = learner(LearningSetting(rule=rule), ARMS)
    chosen = []
    for _ in range(rounds):
        arm = made.choose(rng)
        made.update(arm, float(rng.random() < means[arm]))
        chosen.append(arm)
    return chosen


@pytest.mark.parametrize("rule", ["thompson", "exp3"])
@pytest.mark.parametrize("best", [0, 2])
def test_a_rule_on_a_fixed_reward_table_converges_to_the_best_arm(rule: str, best: int) -> None:
    means = tuple(0.7 if a == best else 0.3 for a in range(3))
    for seed in range(5):
        late = play(rule, means, 2000, seed)[-500:]
        assert np.mean([a == best for a in late]) > 0.8, (rule, seed)


@pytest.mark.parametrize("rule", ["thompson", "exp3"])
def test_a_rebuilt_learner_chooses_as_the_one_that_learned_along(rule: str) -> None:
    """Resume and replay: the state is a function of the (arm, reward) pairs told."""
    rng = np.random.default_rng(3)
    along, history = learner(LearningSetting(rule=rule), ARMS), []
    for step in range(200):
        arm = along.choose(np.random.default_rng([3, step]))
        value = float(rng.random() < 0.5)
        along.update(arm, value)
        history.append((arm, value))
    rebuilt = learner(LearningSetting(rule=rule), ARMS, history)
    for step in range(200, 260):
        assert rebuilt.choose(np.random.default_rng([3, step])) == along.choose(
            np.random.default_rng([3, step])
        )


def test_rewards_are_attention_revenue_or_a_mix() -> None:
    first_not_bought = Observation(shortlisted=True, top1=True, bought=False)
    assert reward(first_not_bought, "top1") == 1.0
    assert reward(first_not_bought, "purchase") == 0.0
    assert reward(first_not_bought, "mix", top1_weight=0.25) == 0.25


def test_unknown_rules_and_bad_exploration_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown learning rule name 'ucb'; known: thompson, exp3"):
        LearningSetting(rule="ucb")
    with pytest.raises(ValueError, match=r"learning rule 'exp3': params\.gamma"):
        LearningSetting(rule="exp3", params={"gamma": 0.0})
    from recmarket.catalogue.learning import Exp3

    with pytest.raises(ValueError, match="gamma must be in"):
        Exp3(ARMS, gamma=0.0)


def test_thompson_priors_are_parameters() -> None:
    """A pessimistic prior holds the posterior draws of untried arms low."""
    made = learner(LearningSetting(rule="thompson", params={"alpha": 1, "beta": 50}), ARMS)
    assert made.alpha.tolist() == [1.0] * 3 and made.beta.tolist() == [50.0] * 3


GREEDY = """
from dataclasses import dataclass, field
from recmarket.catalogue.learning import LearningRule

@dataclass
class Greedy:
    '''Rule-based: the arm with the best mean reward so far (untried arms first), no draw.'''
    arms: list
    totals: list = field(init=False)
    counts: list = field(init=False)

    def __post_init__(self):
        self.totals, self.counts = [0.0] * len(self.arms), [0] * len(self.arms)

    def choose(self, rng):
        means = [t / c if c else 2.0 for t, c in zip(self.totals, self.counts)]
        return means.index(max(means))

    def update(self, arm, reward):
        self.totals[arm] += reward
        self.counts[arm] += 1

GREEDY = LearningRule("greedy", lambda arms, params: Greedy(arms))
"""


@pytest.mark.slow  # end to end; keeps the default selection under 4 minutes
def test_a_rule_based_strategy_from_a_package_plays_by_name(tmp_path: Path) -> None:
    """Declared under the entry-point group's older name, which is still read."""
    (tmp_path / "greedy_plugin.py").write_text(GREEDY)
    site = dist_info(
        tmp_path, "greedy-plugin", {"recmarket.strategies": {"greedy": "greedy_plugin:GREEDY"}}
    )
    out = tmp_path / "run"
    flags = ["--domain", "Video_Games", "--requests", "48", "--platform-strategy", "adaptive"]
    flags += ["--learning-rule", "greedy", "--out", str(out)]
    recmarket("run", *flags, paths=(site,))
    with RunStore.read(out) as store:
        rows = sorted(store.episodes(), key=lambda r: r["ord"])
    first = json.loads(rows[0]["lessons"])
    # Untried arms come first, in order: every platform opens with the first arm.
    assert {arm for arm, _ in first.values()} == {"strict"}
    played = {arm for r in rows for arm, _ in json.loads(r["lessons"]).values()}
    assert played == {"strict", "balanced", "exaggeration"}


def test_thompson_draws_as_numpys_array_beta_would() -> None:
    taught = ThompsonSampling(("a", "b", "c", "d"))
    for arm, earned in [(0, 1.0), (1, 0.0), (2, 0.5), (0, 1.0), (3, 0.0)]:
        taught.update(arm, earned)
    for seed in range(300):
        expected = int(np.argmax(np.random.default_rng(seed).beta(taught.alpha, taught.beta)))
        assert taught.choose(np.random.default_rng(seed)) == expected
