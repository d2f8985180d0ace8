"""Bootstrap designs: agreement with scipy, exactness of the count shortcut, clustering, and
the seed stage that replicated cells add."""

import numpy as np
import pytest

from recmarket.analysis.bootstrap import (
    Metric,
    difference,
    interval,
    level_of,
    mean_of,
    ratio,
    spread,
)
from recmarket.analysis.contrasts import contrast, paired_and_unpaired, rate

scipy_stats = pytest.importorskip("scipy.stats", reason="scipy comes with the test extras")
VALUE = mean_of(lambda r: r["v"])


def episodes(values, *, domain="D", users=4, replicate=None, condition="no-rep") -> list[dict]:
    return [
        {
            "domain": domain,
            "ord": i,
            "episode_id": f"{domain}/{i}",
            "condition": condition,
            "sim_user": i % users,
            "profile": f"p{i % users % 2}",
            "replicate": replicate,
            "v": float(v),
            "target_purchased": v,
        }
        for i, v in enumerate(values)
    ]


@pytest.mark.slow  # keeps the default selection well under 4 minutes
@pytest.mark.parametrize("kind", ["binary", "continuous"])
def test_one_seeds_interval_matches_scipy_percentile_bootstrap(kind: str) -> None:
    gen = np.random.default_rng(1)
    if kind == "binary":
        d = gen.choice([-1.0, 0.0, 1.0], p=[0.2, 0.5, 0.3], size=800)
    else:
        d = gen.normal(0.1, 1.0, size=800)
    ours = interval([episodes(d)], VALUE, level_of, "request", draws=50_000, seed=2)
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
    assert ours.design == "paired-request" and ours.seeds == 1


def test_counting_categories_has_the_distribution_of_index_resampling() -> None:
    d = np.random.default_rng(4).choice([0.0, 1.0], p=[0.7, 0.3], size=600)
    fast = interval([episodes(d)], VALUE, level_of, "request", draws=40_000, seed=5)
    # a negligible jitter makes every request its own category: plain index resampling
    jitter = d + np.random.default_rng(6).uniform(0, 1e-9, size=len(d))
    slow = interval([episodes(jitter)], VALUE, level_of, "request", draws=40_000, seed=7)
    width = fast.high - fast.low
    assert abs(fast.low - slow.low) < 0.03 * width and abs(fast.high - slow.high) < 0.03 * width


def test_macro_is_the_unweighted_mean_of_domain_estimates() -> None:
    rows = episodes([1] * 100, domain="A") + episodes([0] * 900, domain="B")
    rows += episodes([0.5] * 50, domain="C")
    result = interval([rows], VALUE, level_of, "request", draws=2_000)
    assert result.estimate == pytest.approx(0.5)
    assert result.per_domain == {"A": 1.0, "B": 0.0, "C": 0.5}
    assert result.low == pytest.approx(0.5) and result.high == pytest.approx(0.5)


def test_a_pooled_share_sums_domains_before_dividing() -> None:
    """Fig. 11's label shares pool across domains; the macro mean would weigh them alike."""
    rows = episodes([1] * 10, domain="A") + episodes([0] * 90, domain="B")
    pooled = Metric(lambda r: (r["v"], 1.0), lambda s: ratio(s, 100.0), pooled=True)
    assert interval([rows], pooled, level_of, "request", draws=500).estimate == pytest.approx(10)
    macro = Metric(lambda r: (r["v"], 1.0), lambda s: ratio(s, 100.0))
    assert interval([rows], macro, level_of, "request", draws=500).estimate == pytest.approx(50)


def test_cluster_design_widens_intervals_when_users_are_correlated() -> None:
    gen = np.random.default_rng(7)
    user_effect = gen.normal(0, 0.5, size=12)
    values = [user_effect[i % 12] + gen.normal(0, 0.2) for i in range(1200)]
    rows = episodes(values, users=12)
    paired = interval([rows], VALUE, level_of, "request", draws=20_000)
    clustered = interval([rows], VALUE, level_of, "user", draws=20_000)
    assert clustered.estimate == pytest.approx(paired.estimate)
    assert (clustered.high - clustered.low) > 3 * (paired.high - paired.low)
    assert clustered.design == "cluster-user"


@pytest.mark.slow  # keeps the default selection well under 4 minutes
def test_seeds_are_resampled_so_a_seed_effect_widens_the_interval() -> None:
    """Three replicates whose markets differ (a seed effect of +-0.1) with little noise within
    each: resampling the seeds shows the spread that one seed's interval cannot."""
    gen = np.random.default_rng(8)
    rows = []
    for replicate, shift in zip((1, 2, 3), (-0.1, 0.0, 0.1), strict=True):
        rows += episodes(0.5 + shift + gen.normal(0, 0.05, 600), replicate=replicate)
    replicated = interval([rows], VALUE, level_of, "request", draws=20_000)
    assert replicated.design == "paired-request x 3 seeds" and replicated.seeds == 3
    assert replicated.estimate == pytest.approx(np.mean([r["v"] for r in rows]))
    assert replicated.high - replicated.low > 0.1
    one = interval([[r for r in rows if r["replicate"] == 2]], VALUE, level_of, "request")
    assert one.high - one.low < 0.02


def test_arms_share_units_and_a_spread_is_taken_inside_each_draw() -> None:
    base = np.random.default_rng(9).normal(0, 1, 400)
    arms = [episodes(base + shift) for shift in (0.0, 0.3, 1.0)]
    result = interval(arms, VALUE, spread, "request", draws=5_000)
    assert result.estimate == pytest.approx(1.0)
    # the same requests in every arm: a constant shift has no sampling error at all
    assert result.low == pytest.approx(1.0) and result.high == pytest.approx(1.0)
    paired = interval(arms[:2], VALUE, difference, "request", draws=5_000)
    assert paired.low == pytest.approx(0.3) and paired.high == pytest.approx(0.3)


def test_pairing_narrows_a_contrast_whose_arms_share_their_noise() -> None:
    """Two arms that share each request's large noise and differ by 0.2: paired, the noise
    cancels; unpaired, each arm's noise adds."""
    shared = np.random.default_rng(8).normal(0, 1, 400)
    arms = [
        episodes(shared),
        episodes(shared + 0.2 + np.random.default_rng(9).normal(0, 0.05, 400)),
    ]
    paired, unpaired = paired_and_unpaired(*arms, lambda r: r["v"], "request", draws=5_000)
    assert paired.estimate == pytest.approx(unpaired.estimate) == pytest.approx(20, abs=1)
    assert (unpaired.high - unpaired.low) > 10 * (paired.high - paired.low)
    assert paired.low > 15 and unpaired.design == "paired-request, arms resampled apart"


def test_contrasts_pick_the_design_and_check_requests_match() -> None:
    a, b = episodes([0, 1, 0, 0] * 10), episodes([1, 1, 0, 1] * 10)
    result = contrast(a, b, lambda r: r["target_purchased"], draws=2_000)
    assert result.design == "paired-request" and result.estimate == pytest.approx(0.5)
    rep = contrast(
        a,
        episodes([1, 1, 0, 1] * 10, condition="local-rep"),
        lambda r: r["target_purchased"],
        draws=2_000,
    )
    assert rep.design == "cluster-user"
    shifted = episodes([1] * 40)
    shifted[3]["episode_id"] = "D/other"
    with pytest.raises(ValueError, match="do not share episodes"):
        contrast(a, shifted, lambda r: r["target_purchased"])


def test_a_cells_rate_is_its_macro_mean_with_the_design_of_its_condition() -> None:
    plain = rate(episodes([1, 0, 0, 0] * 10), lambda r: r["target_purchased"], draws=2_000)
    assert plain.design == "paired-request" and plain.estimate == pytest.approx(0.25)
    # all of user 0's episodes bought: the users, not the episodes, are the sample
    stateful = rate(
        episodes([1, 0, 0, 0] * 10, condition="local-rep"), lambda r: r["target_purchased"]
    )
    assert stateful.design == "cluster-user" and stateful.estimate == pytest.approx(0.25)
    assert (stateful.high - stateful.low) > (plain.high - plain.low)
