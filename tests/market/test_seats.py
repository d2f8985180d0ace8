"""Adaptive platforms in the round: arms, batch updates by period, what a platform learns
from, claim intensity, and the LLM-free parts of the information boundary."""

import asyncio

import numpy as np
import pytest

from recmarket.agents.judgement import Judge
from recmarket.agents.rules import offline_agents
from recmarket.agents.rules.params import PlatformParams, ScaleParams
from recmarket.agents.rules.platform import claimed_level
from recmarket.catalogue.policies import BALANCED, EXAGGERATION, STRICT
from recmarket.catalogue.strategies import arms, policy_of
from recmarket.config import MarketConfig
from recmarket.market.build import build_market
from recmarket.market.protocol import Round
from recmarket.market.reputation import ReputationMemory
from tests.fixtures import bundled_parts


@pytest.fixture(scope="module")
def setup():
    return bundled_parts("Video_Games", 48, 4)


def adaptive_round(setup, **market) -> Round:
    domain, requests, vectors, embedder = setup
    cfg = MarketConfig(platform_strategy="adaptive", learning_period=6, **market)
    built = build_market(domain, requests, vectors, cfg, seed=4)
    return Round(
        built,
        offline_agents(embedder),
        embedder,
        "local-rep",
        ReputationMemory(10, "local"),
        Judge.of(embedder, ScaleParams()),
    )


def test_arms_are_the_policies_with_intensities_where_a_policy_has_a_distance() -> None:
    assert [a.name for a in arms((1.0,))] == ["strict", "balanced", "exaggeration"]
    names = [a.name for a in arms((0.5, 1.0))]
    assert names == ["strict:0.5", "strict", "balanced", "exaggeration:0.5", "exaggeration"]
    assert [policy_of(n) for n in names] == ["strict"] * 2 + ["balanced"] + ["exaggeration"] * 2


def test_intensity_scales_the_distance_between_claim_and_reading() -> None:
    p = PlatformParams()
    for policy, sign in ((STRICT, -1), (EXAGGERATION, 1)):
        full = claimed_level(policy, 0.5, p, np.random.default_rng(1), 1.0)
        half = claimed_level(policy, 0.5, p, np.random.default_rng(1), 0.5)
        assert sign * (full - 0.5) > 0
        assert half - 0.5 == pytest.approx((full - 0.5) / 2)
    balanced = claimed_level(BALANCED, 0.5, p, np.random.default_rng(1), 0.5)
    assert balanced == 0.5


def test_a_period_cannot_choose_before_the_previous_one_has_finished(setup) -> None:
    rnd = adaptive_round(setup)
    requests = rnd.market.requests
    assert rnd.strategies is not None
    rnd.strategies.choose(requests[5], 0)  # period 0: the untaught prior
    with pytest.raises(RuntimeError, match="period 0 have not finished"):
        rnd.strategies.choose(requests[6], 0)


def test_learners_update_once_per_period_from_the_episodes_lessons(setup) -> None:
    rnd = adaptive_round(setup)
    strategies = rnd.strategies
    assert strategies is not None

    async def play(n: int) -> list:
        return [await rnd.play(r) for r in rnd.market.requests[:n]]

    outcomes = asyncio.run(play(12))
    learner = strategies.by_id["P1"].learner
    # after 12 rounds only period 0 (6 rounds) has been applied: period 1 waits for round 13
    told = [o.lessons["P1"] for o in outcomes[:6] if "P1" in o.lessons]
    assert strategies.learned == 1
    assert learner.alpha.sum() + learner.beta.sum() == pytest.approx(6 + len(told))
    assert learner.alpha.sum() - 3 == pytest.approx(sum(v for _, v in told))
    for o in outcomes:
        # every proposal of an adaptive platform records its arm, and its reward is what it
        # could see: top1 by default, 1 exactly when its proposal was ranked first
        assert set(o.choices) == {p.platform_id for p in o.pool}
        for p in o.pool:
            arm, value = o.lessons[p.platform_id]
            assert policy_of(arm) is p.policy
            assert value == float(o.shown[0] is p)


def test_choices_follow_the_lessons_not_the_order_episodes_finish_in(setup) -> None:
    """Two rounds told the same lessons in different orders within a period choose alike
    (EXP3's update depends on the order of its lessons; they are applied in schedule order)."""
    first, second = (adaptive_round(setup, learning={"rule": "exp3"}) for _ in range(2))
    names = ("strict", "balanced", "exaggeration")
    lessons = {o: {"P1": (names[o % 3], float(o % 2))} for o in range(6)}
    for order in range(6):
        first.strategies.observe(order, lessons[order])
    for order in reversed(range(6)):
        second.strategies.observe(order, lessons[order])
    requests = first.market.requests
    picks = [
        [r.strategies.choose(q, p).name for q in requests[6:12] for p in range(6)]
        for r in (first, second)
    ]
    assert picks[0] == picks[1]
    weights = [r.strategies.by_id["P1"].learner.log_weights for r in (first, second)]
    assert np.array_equal(weights[0], weights[1]) and weights[0].any()


def test_a_fixed_intensity_reaches_the_offline_platform_and_only_then_the_input(setup) -> None:
    domain, requests, vectors, embedder = setup
    for intensity, shown in ((1.0, False), (0.5, True)):
        cfg = MarketConfig(claim_intensities=(intensity,))
        built = build_market(domain, requests, vectors, cfg, seed=4)
        rnd = Round(built, offline_agents(embedder), embedder, "no-rep")
        outcome = asyncio.run(rnd.play(requests[0]))
        explain = next(c.input for c in outcome.calls if c.role == "explain")
        assert ("intensity" in explain.model_dump()) is shown
        assert explain.intensity == (intensity if shown else None)
