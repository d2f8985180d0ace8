"""Rewritten listings in the round: what the ranker and the user read, and the records a
strategy at intensity 0 leaves as copy-none's."""

import asyncio
from dataclasses import replace

import pytest

from recmarket.agents.contracts import CopyInput, Listing
from recmarket.agents.copywriting import allowance, own_listing
from recmarket.agents.judgement import Judge
from recmarket.agents.rules import offline_agents
from recmarket.agents.rules.params import ScaleParams
from recmarket.catalogue.listing_copy import CopySetting
from recmarket.config import MarketConfig
from recmarket.market.build import build_market
from recmarket.market.metrics import episode_metrics
from recmarket.market.protocol import Round
from recmarket.market.reputation import ReputationMemory
from recmarket.market.settings import MarketConfig as Settings
from tests.fixtures import bundled_parts


@pytest.fixture(scope="module")
def setup():
    return bundled_parts("Video_Games", 40, 3)


def play(setup, copy: dict | None, copywriter=None):
    domain, requests, vectors, embedder = setup
    agents = offline_agents(embedder)
    if copywriter is not None:
        agents = replace(agents, copywriter=copywriter)
    cfg = MarketConfig.model_validate({"copy": copy or {}})
    market = build_market(domain, requests, vectors, cfg, seed=3)
    memory = ReputationMemory(10, "local", Settings().reputation_in_use, False)
    rnd = Round(
        market,
        agents,
        embedder,
        "local-rep",
        memory,
        judge=Judge.of(embedder, ScaleParams()),
    )

    async def all_():
        return [await rnd.play(r) for r in requests]

    return asyncio.run(all_())


def stuffing(intensity: float) -> dict:
    return {"P4": {"copy": "copy-stuffing", "params": {"intensity": intensity}}}


def test_a_strategy_at_intensity_0_plays_copy_nones_episodes(setup) -> None:
    none, off = play(setup, None), play(setup, stuffing(0.0))
    for a, b in zip(none, off, strict=True):
        assert [(c.role, c.input, c.output) for c in a.calls] == [
            (c.role, c.input, c.output) for c in b.calls
        ]
        before, after = episode_metrics(a).model_dump(), episode_metrics(b).model_dump()
        copied = {"top1_rewritten", "bought_rewritten", "words_unsupported"}
        assert {k: v for k, v in after.items() if k not in copied} == {
            k: v for k, v in before.items() if k not in copied
        }
        assert all(before[k] is None for k in copied)  # no seat rewrites
        if b.pool:  # a rewriting seat that added nothing
            assert after["words_unsupported"] == 0 and after["top1_rewritten"] is False


def test_the_ranker_user_and_review_read_the_rewritten_listing(setup) -> None:
    played = play(setup, stuffing(1.0))
    rewritten = [p for o in played for p in o.pool if p.listing is not None]
    assert rewritten and all(p.platform_id == "P4" for p in rewritten)
    assert sum(episode_metrics(o).words_unsupported for o in played) > 0
    for o in played:
        p4 = next((p for p in o.pool if p.platform_id == "P4" and p.listing), None)
        shortlist = next((c for c in o.calls if c.role == "shortlist"), None)
        if p4 is None or shortlist is None:
            continue
        seen = {c.platform_id: c.title for c in shortlist.input.candidates}
        assert seen["P4"] == p4.listing.title
        review = next((c for c in o.calls if c.role == "review"), None)
        if review is not None and o.purchased.platform_id == "P4":
            assert review.input.listing == p4.listing


def test_the_copywriter_is_asked_for_the_rewriting_seats_proposals_only(setup) -> None:
    played, items = play(setup, stuffing(1.0)), setup[0].items
    setting = CopySetting.model_validate(stuffing(1.0)["P4"])
    assert any(c.role == "copywriter" for o in played for c in o.calls)
    for o in played:
        roles = [c.role for c in o.calls]
        asked = [c for c in o.calls if c.role == "copywriter"]
        p4 = [p for p in o.pool if p.platform_id == "P4"]
        item = items[p4[0].item_index].evidence if p4 else None
        may = item is not None and allowance(setting, o.need, item) > 0
        assert len(asked) == int(may)  # only where the strategy may add a word
        if asked:  # right after that seat's explanation, from what a platform sees
            assert roles[roles.index("copywriter") - 1] == "explain"
            assert asked[0].input.item == item and asked[0].input.need == o.need
            assert asked[0].output == (p4[0].listing or own_listing(item))


class Fixed:
    """A copywriter of another backend: the same title for every listing, or the item's own."""

    def __init__(self, own: bool = False) -> None:
        self.own = own
        self.seen: list[CopyInput] = []

    async def __call__(self, inp: CopyInput, seed: int) -> Listing:
        self.seen.append(inp)
        title = inp.item.title if self.own else "Best Match Ever"
        return Listing(title=title, description=inp.item.description)


def test_whichever_backend_writes_the_listing_the_ranker_reads_it(setup) -> None:
    fixed = Fixed()
    played = play(setup, stuffing(1.0), fixed)
    assert fixed.seen and all(i.strategy.name == "copy-stuffing" for i in fixed.seen)
    read = 0
    for o in played:
        asked = any(c.role == "copywriter" for c in o.calls)
        for call in (c for c in o.calls if c.role == "shortlist"):
            for view in (v for v in call.input.candidates if v.platform_id == "P4"):
                assert (view.title == "Best Match Ever") is asked
                read += asked
    assert read > 0


def test_a_copywriter_answering_the_items_own_listing_leaves_it_unrewritten(setup) -> None:
    own = Fixed(own=True)
    played = play(setup, stuffing(1.0), own)
    assert own.seen and not any(p.listing for o in played for p in o.pool)
    assert all(episode_metrics(o).top1_rewritten in (False, None) for o in played)
