"""Property-based tests (hypothesis) for catalogs, retrieval sampling and reputation windows."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from recmarket.agents.contracts import ReputationRecord
from recmarket.market.catalogs import assign_catalogs
from recmarket.market.reputation import ReputationMemory
from recmarket.market.retrieval import EpisodeDraws, Retriever, top_l
from tests.fixtures import user_request

FAST = settings(max_examples=40, deadline=None)


@FAST
@given(
    n_items=st.integers(1, 400),
    n_platforms=st.integers(1, 12),
    rho=st.floats(0, 1),
    cap=st.integers(1, 200),
    seed=st.integers(0, 2**31),
    n_targets=st.integers(0, 30),
    rotation=st.integers(0, 30),
)
def test_catalog_invariants(n_items, n_platforms, rho, cap, seed, n_targets, rotation) -> None:
    targets = np.arange(min(n_targets, n_items))
    free = assign_catalogs(
        n_items, targets, n_platforms=n_platforms, rho=rho, cap=10**9, seed=seed, domain="P"
    )
    capped = assign_catalogs(
        n_items,
        targets,
        n_platforms=n_platforms,
        rho=rho,
        cap=cap,
        seed=seed,
        domain="P",
        rotation=rotation,
    )
    unrotated = capped.rotated((-rotation) % n_platforms)
    regular = np.ones(n_items, dtype=bool)
    regular[targets] = False
    assert (unrotated.membership[regular].sum(axis=0) <= cap).all()
    assert (unrotated.membership[targets] == free.membership[targets]).all()
    assert free.membership.any(axis=1).all()  # every item has its primary platform
    assert not (unrotated.membership & ~free.membership).any()
    assert sorted(map(tuple, capped.membership.T.tolist())) == sorted(
        map(tuple, unrotated.membership.T.tolist())
    )  # a rotation only relabels catalogs


@FAST
@given(
    n_items=st.integers(1, 200),
    dim=st.integers(2, 12),
    n_platforms=st.integers(1, 8),
    top=st.integers(1, 8),
    p_hit=st.floats(0, 1),
    seed=st.integers(0, 2**31),
    episode=st.integers(0, 10**6),
)
def test_retrieval_candidates_come_from_the_catalogs_top_l(
    n_items, dim, n_platforms, top, p_hit, seed, episode
) -> None:
    gen = np.random.default_rng(seed)
    vectors = gen.normal(size=(n_items, dim)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    target = int(gen.integers(n_items))
    catalogs = assign_catalogs(
        n_items, np.array([target]), n_platforms=n_platforms, rho=0.3, cap=50, seed=seed, domain="P"
    )
    retriever = Retriever(vectors, catalogs, top_l=top, tau=0.1, p_hit=p_hit)
    scores = retriever.scores(vectors[int(gen.integers(n_items))])
    draws = EpisodeDraws.draw(seed, "P", episode, n_platforms, top)
    for proposal in retriever.user_agent_pool(scores, target, draws):
        members = catalogs.members(proposal.platform)
        if not len(members):
            assert proposal.candidate == -1
            continue
        assert proposal.candidate in members  # never an item the catalog lacks
        if proposal.forced:
            assert proposal.candidate == target and catalogs.membership[target, proposal.platform]
        else:
            assert proposal.candidate in top_l(scores, members, top)[0]


@FAST
@given(
    window=st.integers(1, 12),
    events=st.lists(
        st.tuples(
            st.integers(0, 3),
            st.sampled_from(["P1", "P2", "P3"]),
            st.sampled_from(["high", "mixed", "low"]),
        ),
        max_size=60,
    ),
    scope=st.sampled_from(["local", "style", "shared"]),
)
def test_reputation_windows_keep_the_w_most_recent(window, events, scope) -> None:
    memory = ReputationMemory(window, scope)
    expected: dict[tuple[str, str], list[str]] = {}
    for i, (user, platform, label) in enumerate(events):
        r = user_request(user)
        memory.append(r, platform, ReputationRecord(claim_reliability=label, note=f"n{i}"))
        key = {"local": f"user-{user}", "style": "profile-novice_advice", "shared": "shared"}
        expected.setdefault((key[scope], platform), []).append(f"n{i}")
    for user in range(4):
        seen = memory.histories(user_request(user), ("P1", "P2", "P3"))
        for platform, records in seen.items():
            key = {"local": f"user-{user}", "style": "profile-novice_advice", "shared": "shared"}[
                scope
            ]
            assert [r.note for r in records] == expected.get((key, platform), [])[-window:]
            assert len(records) <= window
