import numpy as np
import pytest

from recmarket.market.catalogs import Catalogs, assign_catalogs
from recmarket.market.retrieval import EpisodeDraws, Retriever, top_l


def unit(rows: np.ndarray) -> np.ndarray:
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


@pytest.fixture
def market():
    gen = np.random.default_rng(0)
    vectors = unit(gen.normal(size=(2000, 16)))
    catalogs = assign_catalogs(
        2000, np.arange(0), n_platforms=6, rho=0.1, cap=10**9, seed=0, domain="D"
    )
    return vectors, catalogs


def test_top_l_is_exact(market) -> None:
    vectors, catalogs = market
    need = vectors[5]
    scores = vectors @ need
    for p in range(6):
        members = catalogs.members(p)
        items, s = top_l(scores, members, 5)
        brute = members[np.argsort(-scores[members], kind="stable")[:5]]
        assert list(items) == list(brute)
        assert np.all(np.diff(s) <= 0)


@pytest.mark.parametrize("shortlist", [8, 64, 4096])
def test_the_pool_is_each_catalogs_gumbel_draw_over_its_exact_top_l(market, shortlist) -> None:
    """All platforms' draws are taken at once over one shortlist of the universe; whatever
    its size (8 makes every platform fall back to a scan of its whole catalog), each
    candidate is the Gumbel-max over that platform's exact top L, as a scan of it finds."""
    vectors, catalogs = market
    retriever = Retriever(vectors, catalogs, top_l=5, tau=0.1, p_hit=0.0)
    retriever.shortlist = shortlist
    members = [catalogs.members(p) for p in range(6)]
    for e, need in enumerate(vectors[:20]):
        scores = vectors @ need
        draws = EpisodeDraws.draw(3, "D", e, 6, 5)
        pool = retriever.user_agent_pool(scores, target=0, draws=draws)
        for p, proposal in enumerate(pool):
            items, item_scores = top_l(scores, members[p], 5)
            keys = item_scores / 0.1 + draws.gumbel[p, : len(items)]
            assert proposal.candidate == items[np.argmax(keys)]


@pytest.mark.parametrize("shortlist", [8, 64])
def test_a_pool_is_the_same_whichever_needs_it_is_drawn_with(market, shortlist) -> None:
    """A block of needs is drawn in arrays at once (stage 2's search); each need's pool,
    with its own platforms present and its own target, is the one it gets alone, whatever
    its place in the block and its block-mates (8 makes platforms fall back to a scan)."""
    vectors, catalogs = market
    retriever = Retriever(vectors, catalogs, top_l=5, tau=0.1, p_hit=0.5)
    retriever.shortlist = shortlist
    needs = range(30)
    scores = np.stack([retriever.scores(vectors[e]) for e in needs])
    targets = [int(np.flatnonzero(catalogs.membership[:, e % 6])[e]) for e in needs]
    draws = [EpisodeDraws.draw(4, "D", e, 6, 5) for e in needs]
    present = [6 - e % 3 for e in needs]
    alone = [retriever.user_agent_pool(scores[e], targets[e], draws[e], present[e]) for e in needs]
    assert retriever.user_agent_pools(scores, targets, draws, present) == alone
    backwards = retriever.user_agent_pools(scores[::-1], targets[::-1], draws[::-1], present[::-1])
    assert backwards[::-1] == alone
    assert [len(pool) for pool in alone] == present
    assert any(r.forced for pool in alone for r in pool)


@pytest.mark.slow  # keeps the default selection well under 4 minutes
def test_gumbel_draw_frequencies_follow_softmax_over_top_l() -> None:
    scores = np.array([0.50, 0.48, 0.45, 0.40, 0.30, 0.10], dtype=np.float32)
    membership = np.ones((6, 1), dtype=bool)
    retriever = Retriever(
        np.eye(6, dtype=np.float32), Catalogs(membership), top_l=5, tau=0.1, p_hit=0.0
    )
    counts = np.zeros(6)
    n = 20_000
    for e in range(n):
        draws = EpisodeDraws.draw(0, "D", e, 1, 5)
        (proposal,) = retriever.user_agent_pool(scores, target=0, draws=draws)
        counts[proposal.candidate] += 1
    expected = np.exp(scores[:5] / 0.1)
    expected /= expected.sum()
    assert counts[5] == 0  # outside the top L: never drawn
    se = np.sqrt(expected * (1 - expected) / n)
    assert np.all(np.abs(counts[:5] / n - expected) < 4 * se)


def test_forced_inclusion_rate_is_p_hit_and_never_adds_the_target(market) -> None:
    vectors, catalogs = market
    retriever = Retriever(vectors, catalogs, top_l=5, tau=0.1, p_hit=0.8)
    need = unit(np.ones((1, 16)))[0]
    scores = retriever.scores(need)
    fired, carrying = 0, 0
    for e in range(3000):
        target = e % 2000
        draws = EpisodeDraws.draw(1, "D", e, 6, 5)
        for r in retriever.user_agent_pool(scores, target, draws):
            carries = catalogs.membership[target, r.platform]
            if not carries:
                assert r.candidate != target and not r.forced
                continue
            carrying += 1
            fired += r.forced
            if r.forced:
                assert r.candidate == target
    assert abs(fired / carrying - 0.8) < 4 * np.sqrt(0.16 / carrying)


def test_platform_centric_shows_j_items_from_the_entered_catalog(market) -> None:
    vectors, catalogs = market
    retriever = Retriever(vectors, catalogs, top_l=5, tau=0.1, p_hit=1.0)
    scores = retriever.scores(vectors[0])
    for e in range(200):
        target = int(np.flatnonzero(catalogs.membership[:, e % 6])[e])
        draws = EpisodeDraws.draw(2, "D", e, 6, 5)
        platform, shown, forced = retriever.platform_centric(scores, target, draws, j=3)
        assert platform == draws.entry
        assert len(shown) == len(set(shown)) == 3
        assert all(catalogs.membership[i, platform] for i in shown)
        assert [scores[i] for i in shown] == sorted((scores[i] for i in shown), reverse=True)
        assert forced == bool(catalogs.membership[target, platform])
        if forced:
            assert target in shown


def test_an_episodes_retrieval_does_not_depend_on_what_was_drawn_before(market) -> None:
    """Draws are keyed by the episode: drawing other episodes first (as a resumed run, a
    work unit or another interleaving does) leaves an episode's proposals as they were."""
    vectors, catalogs = market
    retriever = Retriever(vectors, catalogs, top_l=5, tau=0.1, p_hit=0.8)
    scores = retriever.scores(vectors[3])

    def proposals(episode: int) -> list[int]:
        draws = EpisodeDraws.draw(9, "D", episode, 6, 5)
        return [r.candidate for r in retriever.user_agent_pool(scores, 3, draws)]

    first = proposals(4)
    others = [proposals(e) for e in range(40) if e != 4]
    assert proposals(4) == first
    assert any(o != first for o in others)  # the key matters: other episodes draw otherwise
    batch = retriever.scores(vectors[[3, 4]])
    assert np.allclose(batch[0], scores, atol=1e-6)


def test_items_in_no_catalog_are_never_scored_or_proposed() -> None:
    gen = np.random.default_rng(3)
    vectors = unit(gen.normal(size=(500, 8)))
    catalogs = assign_catalogs(
        500, np.arange(0), n_platforms=3, rho=0.0, cap=50, seed=0, domain="D"
    )
    retriever = Retriever(vectors, catalogs, top_l=5, tau=0.1, p_hit=0.8)
    carried = catalogs.membership.any(axis=1)
    assert carried.sum() == 150
    scores = retriever.scores(vectors[:4])
    assert np.isneginf(scores[:, ~carried]).all()
    assert np.allclose(scores[:, carried], (vectors[:4] @ vectors.T)[:, carried], atol=1e-6)
    for e in range(50):
        pool = retriever.user_agent_pool(scores[e % 4], 0, EpisodeDraws.draw(0, "D", e, 3, 5))
        assert all(carried[p.candidate] for p in pool if not p.forced)
