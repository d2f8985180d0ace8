"""Late entrants: their spec, their own catalogs and draws (the incumbents' are untouched),
their absence before entry, and no records before they enter."""

import asyncio

import numpy as np
import pytest
from pydantic import ValidationError

from recmarket.agents.judgement import Judge
from recmarket.agents.rules import offline_agents
from recmarket.agents.rules.params import ScaleParams
from recmarket.config import MarketConfig
from recmarket.market.build import build_market
from recmarket.market.catalogs import assign_catalogs
from recmarket.market.protocol import Round
from recmarket.market.reputation import ReputationMemory
from recmarket.market.retrieval import EpisodeDraws
from recmarket.market.settings import Entrant
from tests.fixtures import bundled_parts


def test_entrants_parse_from_short_forms_in_order_of_entry() -> None:
    cfg = MarketConfig(entrants="adaptive@400, strict@200")
    assert [str(e.plays) for e in cfg.entrants] == ["strict", "adaptive"]
    assert [e.after_rounds for e in cfg.entrants] == [200, 400]
    assert cfg.entrant_ids == ("P7", "P8")
    assert cfg.entrants[0].policy == "strict" and cfg.entrants[1].policy is None
    assert MarketConfig.model_validate_json(cfg.model_dump_json()) == cfg
    assert Entrant.model_validate("promotional_exaggeration@3").policy == "exaggeration"
    for bad in ("strict", "strict@", "strict@-1", "loud@10"):
        with pytest.raises(ValidationError, match=r"entrant|policy"):
            MarketConfig(entrants=bad)


def test_an_entrant_draws_its_own_catalog_and_leaves_the_incumbents_alone() -> None:
    targets = np.array([3, 50, 700])
    kwargs = {"n_platforms": 6, "rho": 0.1, "cap": 400, "seed": 1, "domain": "D"}
    before = assign_catalogs(2000, targets, **kwargs)
    after = assign_catalogs(2000, targets, **kwargs, entrants=2)
    assert after.n_platforms == 8
    assert np.array_equal(after.membership[:, :6], before.membership)
    sizes = after.sizes()
    # an entrant carries an incumbent's share of the universe, under the same cap
    assert all(abs(int(s) - 400) <= 3 for s in sizes[6:])
    assert not np.array_equal(after.membership[:, 6], after.membership[:, 7])
    rotated = assign_catalogs(2000, targets, **kwargs, rotation=1, entrants=2)
    assert np.array_equal(rotated.membership[:, 6:], after.membership[:, 6:])


def test_entrants_draws_come_after_and_apart_from_the_incumbents() -> None:
    plain = EpisodeDraws.draw(1, "D", 7, 6, 5)
    extended = EpisodeDraws.draw(1, "D", 7, 6, 5, entrants=2)
    assert np.array_equal(extended.gumbel[:6], plain.gumbel)
    assert np.array_equal(extended.inclusion[:6], plain.inclusion)
    assert extended.gumbel.shape == (8, 5) and extended.entry == plain.entry


@pytest.fixture(scope="module")
def setup():
    return bundled_parts("Video_Games", 60, 5)


def play(setup, cfg: MarketConfig, condition: str, scope: str = "shared") -> list:
    domain, requests, vectors, embedder = setup
    built = build_market(domain, requests, vectors, cfg, seed=5)
    memory = ReputationMemory(10, scope) if condition == "local-rep" else None
    judge = Judge.of(embedder, ScaleParams())
    rnd = Round(built, offline_agents(embedder), embedder, condition, memory, judge)

    async def all_() -> list:
        return [await rnd.play(r) for r in requests]

    return asyncio.run(all_())


def test_before_entry_the_market_is_the_one_without_the_entrant(setup) -> None:
    without = play(setup, MarketConfig(), "no-rep")
    with_entrant = play(setup, MarketConfig(entrants="strict@20"), "no-rep")
    for a, b in zip(without[:20], with_entrant[:20], strict=True):
        assert [(c.role, c.input, c.output) for c in a.calls] == [
            (c.role, c.input, c.output) for c in b.calls
        ]
    joined = [o for o in with_entrant[20:] if "P7" in {p.platform_id for p in o.pool}]
    assert len(joined) == len(with_entrant) - 20  # it proposes in every round from 21 on
    assert all(p.policy == "strict" for o in joined for p in o.pool if p.platform_id == "P7")


def test_an_entrant_has_no_records_before_it_enters(setup) -> None:
    outcomes = play(setup, MarketConfig(entrants="strict@20"), "local-rep", scope="shared")
    shown_histories = [
        (o.request.order, c.input.histories)
        for o in outcomes
        for c in o.calls
        if c.role == "shortlist"
    ]
    for order, histories in shown_histories:
        assert ("P7" in histories) is (order >= 20)
    first_seen = next(h for order, h in shown_histories if order >= 20)
    assert first_seen["P7"] == ()  # it starts with no records, the incumbents with theirs
    assert any(first_seen[p] for p in ("P1", "P2", "P3", "P4", "P5", "P6"))
    bought_before = [o for o in outcomes[:20] if o.purchased is not None]
    assert all(o.purchased.platform_id != "P7" for o in bought_before)


def test_an_entrant_past_the_schedule_is_refused() -> None:
    from recmarket.config import RunConfig

    with pytest.raises(ValidationError, match=r"strict@600 would enter after the last of the 600"):
        RunConfig.model_validate(
            {"episodes": {"requests": 600}, "market": {"entrants": "strict@600"}}
        )
    last = RunConfig.model_validate(
        {"episodes": {"requests": 600}, "market": {"entrants": "strict@599"}}
    )
    assert last.market.entrants[0].after_rounds == 599  # proposes in the last round
