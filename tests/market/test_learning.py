"""The adaptive platforms' learning rules, on reward tables whose best arm is known."""

import numpy as np
import pytest

from recmarket.market.learning import Observation, learner, reward

ARMS = ("strict", "balanced", "exaggeration")


def play(rule: str, means: tuple[float, ...], rounds: int, seed: int) -> list[int]:
    """Bernoulli rewards with the given means; the arms chosen, in order."""
    rng = np.random.default_rng(seed)
    made = learner(rule, ARMS)
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
    along, history = learner(rule, ARMS), []
    for step in range(200):
        arm = along.choose(np.random.default_rng([3, step]))
        value = float(rng.random() < 0.5)
        along.update(arm, value)
        history.append((arm, value))
    rebuilt = learner(rule, ARMS, history)
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
    with pytest.raises(ValueError, match="unknown learning rule 'ucb'"):
        learner("ucb", ARMS)
    from recmarket.market.learning import Exp3

    with pytest.raises(ValueError, match="gamma must be in"):
        Exp3(ARMS, gamma=0.0)
