"""The round protocol under each condition, on a bundled domain with the offline agents."""

import asyncio
import json
from collections import Counter
from dataclasses import replace

import pytest

from recmarket.agents.judgement import Judge
from recmarket.agents.rules import offline_agents
from recmarket.agents.rules.params import ScaleParams
from recmarket.catalogue.policies import POLICIES
from recmarket.config import MarketConfig
from recmarket.market.build import build_market
from recmarket.market.metrics import DECIDED, choice_alternatives, episode_metrics
from recmarket.market.protocol import Round
from recmarket.market.reputation import ReputationMemory, scope_key
from recmarket.profiles import PROFILE_NAMES
from recmarket.tasks import InTurn, Together
from tests.fixtures import bundled_parts


@pytest.fixture(scope="module")
def setup():
    return bundled_parts("Video_Games", 120, 3)


DEFAULT = MarketConfig()


def play(setup, condition, cfg=DEFAULT, memory=None, n=120):
    domain, requests, vectors, embedder = setup
    market = build_market(domain, requests, vectors, cfg, seed=3)
    judge = Judge.of(embedder, ScaleParams())
    rnd = Round(market, offline_agents(embedder), embedder, condition, memory, judge=judge)

    async def all_():
        return [await rnd.play(r) for r in requests[:n]]

    return asyncio.run(all_())


def roles(outcome) -> list[str]:
    return [c.role for c in outcome.calls]


def test_platform_centric_shows_j_items_of_one_platform(setup) -> None:
    for o in play(setup, "platform-centric", MarketConfig(shortlist_k=3)):
        assert len(o.shown) == 3 and len({p.platform_id for p in o.shown}) == 1
        assert roles(o) == ["query", "need", "explain", "explain", "explain", "decide"]
        decide = o.calls[-1].input
        assert decide.platform_centric and all(opt.reason is None for opt in decide.options)


def test_no_rep_ranks_exactly_k_and_never_reviews(setup) -> None:
    for o in play(setup, "no-rep"):
        assert len(o.pool) == 6 and len(o.shown) == 3
        assert len({p.platform_id for p in o.shown}) == 3
        shortlist = next(c for c in o.calls if c.role == "shortlist")
        assert shortlist.input.histories is None
        assert "review" not in roles(o) and "update" not in roles(o)
        assert o.record is None


def test_candidates_reach_the_ranker_shuffled(setup) -> None:
    first = Counter()
    for o in play(setup, "no-rep"):
        shortlist = next(c for c in o.calls if c.role == "shortlist")
        first[shortlist.input.candidates[0].platform_id] += 1
    assert len(first) == 6


def test_local_rep_updates_only_the_purchased_platform(setup) -> None:
    memory = ReputationMemory(window=3, scope="local")
    outcomes = play(setup, "local-rep", memory=memory)
    written = Counter()
    for o in outcomes:
        bought = o.purchased
        if bought is None:
            assert o.record is None and "review" not in roles(o)
            continue
        assert roles(o)[-2:] == ["review", "update"]
        written[(scope_key(o.request, "local"), bought.platform_id)] += 1
    for (key, platform), n in written.items():
        kept, known = memory._sets[key][platform]
        assert len(kept) == len(known) == min(n, 3)  # the window keeps the W most recent
    assert sum(written.values()) == sum(o.record is not None for o in outcomes)


def test_reputation_scopes_partition_histories(setup) -> None:
    _, requests, _, _ = setup
    keys = {s: {scope_key(r, s) for r in requests} for s in ("local", "style", "shared")}
    assert len(keys["local"]) == 12
    assert len(keys["style"]) == len(PROFILE_NAMES)
    assert keys["shared"] == {"shared"}


def test_a_shared_item_gives_distinct_proposals(setup) -> None:
    outcomes = play(setup, "no-rep", MarketConfig(rho=1.0), n=40)
    assert any(len({p.item_index for p in o.pool}) < len(o.pool) for o in outcomes)
    for o in outcomes:
        assert len({p.platform_id for p in o.pool}) == len(o.pool)


def test_blind_roles_receive_no_policy_or_profile_label_at_run_time(setup) -> None:
    labels = (
        {p.name for p in POLICIES} | {p.implementation_id for p in POLICIES} | set(PROFILE_NAMES)
    )
    memory = ReputationMemory(window=10, scope="local")
    for o in play(setup, "local-rep", memory=memory, n=60):
        for call in o.calls:
            if call.role in ("shortlist", "decide", "update", "need"):
                data = json.loads(call.input.model_dump_json())
                values = json.dumps(data)
                assert not any(f'"{label}"' in values for label in labels)
                assert "target" not in data and "policy" not in data


def test_metrics_follow_the_outcome(setup) -> None:
    for o in play(setup, "no-rep", n=60):
        m = episode_metrics(o)
        assert m.pool_size == len(o.pool)
        assert m.target_present == (m.target_copies > 0)
        assert m.any_purchase != m.no_purchase
        assert m.target_purchased <= m.target_shortlisted <= m.target_present
        assert m.target_top1 <= m.target_shortlisted
        assert m.off_target_purchase == (m.any_purchase and not m.target_purchased)
        assert (m.top1_policy is not None) and (m.purchased_policy is None) == m.no_purchase


def test_offline_calls_in_turn_are_those_made_as_tasks(setup) -> None:
    """Offline roles answer without waiting, so a round makes a stage's calls one after
    another; as concurrent tasks (a model's calls) they are the same calls, in the same
    order, with the same answers. A role that does not say it answers at once gets tasks."""
    domain, requests, vectors, embedder = setup
    market = build_market(domain, requests, vectors, DEFAULT, seed=3)
    agents = offline_agents(embedder)
    assert agents.answer_at_once
    assert not replace(agents, decide=lambda inp, seed: agents.decide(inp, seed)).answer_at_once

    def calls(fan_out) -> list:
        rnd = Round(market, agents, embedder, "local-rep", ReputationMemory(12, "local"))
        assert isinstance(rnd.fan_out, InTurn)
        rnd.fan_out = fan_out

        async def all_():
            prepared = await rnd.prepare(requests[:40])
            return [await rnd.finish(o) for o in prepared]

        return [[(c.role, c.input, c.output) for c in o.calls] for o in asyncio.run(all_())]

    assert calls(InTurn()) == calls(Together())


def test_a_round_that_records_choices_keeps_every_answer_beside_the_drawn_one(setup) -> None:
    """Asked to, a round keeps the decision's chances; each answer's DECIDED columns are
    those the episode would have had, the drawn answer's those it has. Not asked, it keeps
    none, and the episodes are the same either way."""
    domain, requests, vectors, embedder = setup
    market = build_market(domain, requests, vectors, DEFAULT, seed=3)
    judge = Judge.of(embedder, ScaleParams())

    def outcomes(record: bool) -> list:
        rnd = Round(market, offline_agents(embedder), embedder, "no-rep", judge=judge)
        rnd.record_choices = record

        async def all_():
            return [await rnd.play(r) for r in requests[:40]]

        return asyncio.run(all_())

    kept, plain = outcomes(True), outcomes(False)
    assert all(o.chances is None and choice_alternatives(o) is None for o in plain)
    assert [episode_metrics(o) for o in kept] == [episode_metrics(o) for o in plain]
    bought_something = 0
    for o in kept:
        table = json.loads(choice_alternatives(o))
        answers = [a for a, _ in o.chances]
        assert table["chance"] == pytest.approx([c for _, c in o.chances], abs=1e-6)
        assert sum(table["chance"]) == pytest.approx(1.0, abs=1e-5)
        drawn = answers.index(o.decision.option_id)
        realized = episode_metrics(o)
        for column in DECIDED:
            value = getattr(realized, column)
            assert table[column][drawn] == (round(value, 6) if column == "regret" else value)
        assert table["no_purchase"] == [a is None for a in answers]
        for i, answer in enumerate(answers):
            if answer is None:
                continue
            item = o.shown[o.option_ids().index(answer)].item_index
            assert table["target_purchased"][i] == (item == o.target)
            loss = max(o.worth.values()) - o.worth[item]
            assert table["regret"][i] == pytest.approx(loss, abs=1e-6)
            bought_something += 1
    assert bought_something > 0
