"""Every seat's platform strategy: fixed seats keep their policy and draw nothing, adaptive
ones learn, and a market may mix the two (an adaptive entrant among fixed incumbents, a
fixed entrant among adaptive ones)."""

import asyncio

import numpy as np
import pytest
from pydantic import ValidationError

from recmarket.agents.rules import offline_agents
from recmarket.catalogue.strategies import (
    Arm,
    FixedPresentation,
    LearnedPresentation,
    strategy_kind,
)
from recmarket.config import MarketConfig, RunConfig
from recmarket.experiments.units import memory_unit
from recmarket.market.build import build_market
from recmarket.market.protocol import Round
from recmarket.market.seats import Strategies
from tests.fixtures import bundled_parts


@pytest.fixture(scope="module")
def setup():
    return bundled_parts("Video_Games", 30, 6)


def strategies(setup, **market) -> Strategies:
    domain, requests, vectors, _ = setup
    return Strategies(build_market(domain, requests, vectors, MarketConfig(**market), seed=6))


def no_draws() -> np.random.Generator:
    raise AssertionError("a fixed platform drew a number")


def test_fixed_seats_keep_their_composition_policy_at_the_market_intensity(setup) -> None:
    fixed = strategies(setup, composition="strict-exaggeration", claim_intensities=(0.5,))
    assert not fixed.adaptive
    request = fixed.market.requests[7]
    chosen = [fixed.choose(request, p) for p in range(6)]
    assert chosen == [Arm(policy, 0.5) for policy in ("strict", "exaggeration") * 3]
    assert fixed.seats[0].choose(no_draws) == Arm("strict", 0.5)


def test_a_fixed_platform_is_told_no_lessons() -> None:
    with pytest.raises(RuntimeError, match="told no lessons"):
        FixedPresentation(Arm("strict")).observe("strict", 1.0)


def test_a_learned_presentation_plays_its_learners_arm_and_updates_that_arm() -> None:
    class Last:
        """Plays the arm last rewarded with 1 (the first before any): a rule, no draws."""

        arms = ("strict", "balanced", "exaggeration")

        def __init__(self) -> None:
            self.best = 0

        def choose(self, rng: np.random.Generator) -> int:
            return self.best

        def update(self, arm: int, reward: float) -> None:
            if reward == 1.0:
                self.best = arm

    arms = (Arm("strict"), Arm("balanced"), Arm("exaggeration"))
    learned = LearnedPresentation(arms, Last())
    assert learned.adaptive and learned.choose(lambda: np.random.default_rng(0)) == arms[0]
    learned.observe("exaggeration", 1.0)
    learned.observe("balanced", 0.0)
    assert learned.choose(lambda: np.random.default_rng(0)) == arms[2]


def test_an_adaptive_entrant_learns_among_fixed_incumbents(setup) -> None:
    mixed = strategies(setup, entrants="adaptive@0")
    assert mixed.adaptive
    assert [s.adaptive for s in mixed.seats] == [False] * 6 + [True]
    assert isinstance(mixed.by_id["P7"], LearnedPresentation)

    domain, requests, vectors, embedder = setup
    cfg = MarketConfig(entrants="adaptive@0", learning_period=10)
    rnd = Round(
        build_market(domain, requests, vectors, cfg, 6),
        offline_agents(embedder),
        embedder,
        "no-rep",
    )

    async def all_() -> list:
        return [await rnd.play(r) for r in requests[:12]]

    outcomes = asyncio.run(all_())
    # only the entrant's choices are recorded and taught; the incumbents' policies hold
    assert all(set(o.choices) <= {"P7"} for o in outcomes)
    assert any(o.choices for o in outcomes)
    assert all(set(o.lessons) == set(o.choices) for o in outcomes)
    policies = cfg.policies
    for o in outcomes:
        for p in o.pool:
            if p.platform_id != "P7":
                assert p.policy == policies[int(p.platform_id[1:]) - 1]
    assert rnd.strategies.learned == 1  # period 0 applied before round 11 chose


def test_a_fixed_entrant_keeps_its_policy_among_adaptive_incumbents(setup) -> None:
    mixed = strategies(setup, platform_strategy="adaptive", entrants="strict@3")
    assert [s.adaptive for s in mixed.seats] == [True] * 6 + [False]
    request = mixed.market.requests[4]
    assert mixed.choose(request, 6) == Arm("strict")


def test_strategy_kinds_fail_loudly_and_fixed_entrants_are_named_by_their_policy() -> None:
    with pytest.raises(ValueError, match="known: fixed, adaptive"):
        strategy_kind("greedy")
    cfg = MarketConfig()
    with pytest.raises(ValueError, match="fixed"):
        strategy_kind("fixed").make(None, cfg.claim_intensities, cfg.learning_in_use)
    with pytest.raises(ValidationError, match=r"named by its policy \(strict@200\)"):
        MarketConfig(entrants="fixed@200")


def test_a_cells_episodes_are_clustered_by_domain_wherever_a_platform_learns() -> None:
    # an adaptive entrant learns from every stream of its domain, as adaptive incumbents do
    assert memory_unit(RunConfig(condition="no-rep")) == "request"
    entrant = RunConfig(condition="no-rep", market=MarketConfig(entrants="adaptive@5"))
    assert memory_unit(entrant) == "domain"
