"""Bootstrap designs: agreement with scipy, exactness of the count shortcut, clustering."""

import numpy as np
import pytest

from recmarket.analysis import bootstrap
from recmarket.analysis.bootstrap import cluster_user, paired_request
from recmarket.analysis.contrasts import contrast, rate

scipy_stats = pytest.importorskip("scipy.stats", reason="scipy comes with the test extras")


@pytest.mark.parametrize("kind", ["binary", "continuous"])
def test_paired_interval_matches_scipy_percentile_bootstrap(kind: str) -> None:
    gen = np.random.default_rng(1)
    if kind == "binary":
        d = gen.choice([-1.0, 0.0, 1.0], p=[0.2, 0.5, 0.3], size=800)
    else:
        d = gen.normal(0.1, 1.0, size=800)
    ours = paired_request({"D": d}, draws=50_000, seed=2)
    ref = scipy_stats.bootstrap(
        (d,),
        np.mean,
        n_resamples=50_000,
        method="percentile",
        random_state=np.random.default_rng(3),
        vectorized=True,
    )
    width = ref.confidence_interval.high - ref.confidence_interval.low
    assert abs(ours.low - ref.confidence_interval.low) < 0.03 * width
    assert abs(ours.high - ref.confidence_interval.high) < 0.03 * width
    assert ours.estimate == pytest.approx(d.mean())
    assert ours.design == "paired-request"


def test_count_shortcut_has_the_distribution_of_index_resampling(monkeypatch) -> None:
    d = np.random.default_rng(4).choice([0.0, 1.0], p=[0.7, 0.3], size=600)
    fast = paired_request({"D": d}, draws=40_000, seed=5)
    monkeypatch.setattr(bootstrap, "MAX_CATEGORIES", 0)  # force index resampling
    slow = paired_request({"D": d}, draws=40_000, seed=6)
    width = fast.high - fast.low
    assert abs(fast.low - slow.low) < 0.03 * width and abs(fast.high - slow.high) < 0.03 * width


def test_macro_is_the_unweighted_mean_of_domain_estimates() -> None:
    diffs = {"A": np.ones(100), "B": np.zeros(900), "C": np.full(50, 0.5)}
    result = paired_request(diffs, draws=2_000)
    assert result.estimate == pytest.approx(0.5)
    assert result.per_domain == {"A": 1.0, "B": 0.0, "C": 0.5}
    assert result.low == pytest.approx(0.5) and result.high == pytest.approx(0.5)


def test_cluster_design_widens_intervals_when_users_are_correlated() -> None:
    gen = np.random.default_rng(7)
    user_effect = gen.normal(0, 0.5, size=12)
    per_episode = {u: user_effect[u] + gen.normal(0, 0.2, size=100) for u in range(12)}
    flat = np.concatenate(list(per_episode.values()))
    paired = paired_request({"D": flat}, draws=20_000)
    clustered = cluster_user(
        {"D": np.array([v.sum() for v in per_episode.values()])},
        {"D": np.full(12, 100)},
        draws=20_000,
    )
    assert clustered.estimate == pytest.approx(paired.estimate)
    assert (clustered.high - clustered.low) > 3 * (paired.high - paired.low)
    assert clustered.design == "cluster-user"


def rows(condition: str, values: list[int], users: int = 4) -> list[dict]:
    return [
        {
            "domain": "D",
            "ord": i,
            "episode_id": f"D/u{i}",
            "condition": condition,
            "sim_user": i % users,
            "target_purchased": v,
        }
        for i, v in enumerate(values)
    ]


def test_contrasts_pick_the_design_and_check_requests_match() -> None:
    a, b = rows("no-rep", [0, 1, 0, 0] * 10), rows("no-rep", [1, 1, 0, 1] * 10)
    result = contrast(a, b, lambda r: r["target_purchased"], draws=2_000)
    assert result.design == "paired-request" and result.estimate == pytest.approx(0.5)
    rep = contrast(
        a, rows("local-rep", [1, 1, 0, 1] * 10), lambda r: r["target_purchased"], draws=2_000
    )
    assert rep.design == "cluster-user"
    shifted = rows("no-rep", [1] * 40)
    shifted[3]["episode_id"] = "D/other"
    with pytest.raises(ValueError, match="do not share requests"):
        contrast(a, shifted, lambda r: r["target_purchased"])


def test_a_cells_rate_is_its_macro_mean_with_the_design_of_its_condition() -> None:
    plain = rate(rows("no-rep", [1, 0, 0, 0] * 10), lambda r: r["target_purchased"], draws=2_000)
    assert plain.design == "paired-request" and plain.estimate == pytest.approx(0.25)
    # all of user 0's episodes bought: the users, not the episodes, are the sample
    stateful = rate(rows("local-rep", [1, 0, 0, 0] * 10), lambda r: r["target_purchased"])
    assert stateful.design == "cluster-user" and stateful.estimate == pytest.approx(0.25)
    assert (stateful.high - stateful.low) > (plain.high - plain.low)
