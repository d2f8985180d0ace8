"""The prediction-powered estimator on hand-made units whose answers are known: a perfect
surrogate gives the bulk's interval, an unrelated one the pilot's, an identical one a bias
of exactly 0, and power tuning never widens the pilot's own interval."""

import numpy as np
import pytest
from scipy import stats

from recmarket.analysis.bootstrap import difference, level_of, mean_of
from recmarket.analysis.ppi import estimate
from recmarket.analysis.ppi_strata import design_weights
from recmarket.analysis.ppi_units import UnitParts
from recmarket.analysis.sequences import anytime

METRIC = mean_of(lambda r: r)


def units(truth: np.ndarray, predicted: np.ndarray, pilot: int, domains: int = 2) -> UnitParts:
    """Units of ``domains`` strata (one seed), each unit one episode: [value, 1] per arm;
    the first ``pilot`` of each stratum are the pilot's."""
    per = len(truth) // domains

    def parts(values: np.ndarray) -> np.ndarray:
        v = np.atleast_2d(values.T).T  # (units, arms)
        return np.stack([v, np.ones_like(v)], axis=-1)

    strata = {(42, f"d{i}"): slice(i * per, (i + 1) * per) for i in range(domains)}
    return UnitParts(
        {s: parts(predicted[k]) for s, k in strata.items()},
        {s: parts(truth[k][:pilot]) for s, k in strata.items()},
    )


def width(interval: tuple[float, float, float]) -> float:
    return interval[2] - interval[1]


def test_a_perfect_surrogate_gives_the_bulks_value_exactly() -> None:
    """The surrogate played every unit, so a pilot it predicts perfectly leaves nothing
    unknown about this market's units."""
    truth = np.random.default_rng(1).normal(0.5, 0.2, 400)
    found = estimate(units(truth, truth, pilot=40), METRIC, level_of)
    assert found.weight == pytest.approx(1.0)
    assert found.ppi == pytest.approx((truth.mean(),) * 3)
    assert found.offline[0] == pytest.approx(truth.mean()) and width(found.offline) > 0
    assert width(found.pilot) > 0


def test_a_pilot_of_every_unit_knows_the_value_and_a_larger_share_narrows_more_than_n() -> None:
    """Drawn without replacement: at share 1 no width is left, and the pilot-only width
    shrinks by the finite-population factor sqrt(1 - n / N) beside 1 / sqrt(n)."""
    truth = np.random.default_rng(8).normal(0.5, 0.2, 200)
    whole = estimate(units(truth, truth[::-1], pilot=100), METRIC, level_of)
    assert whole.pilot == pytest.approx((truth.mean(),) * 3)
    half = estimate(units(truth, truth[::-1], pilot=50), METRIC, level_of)
    tenth = estimate(units(truth, truth[::-1], pilot=10), METRIC, level_of)
    expected = np.sqrt((1 / 50 - 1 / 100) / (1 / 10 - 1 / 100))
    assert width(half.pilot) / width(tenth.pilot) == pytest.approx(expected, rel=0.25)


def test_an_unrelated_surrogate_gives_the_pilots_interval() -> None:
    gen = np.random.default_rng(2)
    truth, noise = gen.normal(0.5, 0.2, 400), gen.normal(0.5, 0.2, 400)
    found = estimate(units(truth, noise, pilot=40), METRIC, level_of)
    assert found.weight < 0.2
    assert abs(found.correlation) < 0.25
    assert width(found.ppi) == pytest.approx(width(found.pilot), rel=0.05)


def test_identical_backends_measure_no_bias_and_stay_with_the_surrogate() -> None:
    truth = np.random.default_rng(3).normal(0.5, 0.2, 400)
    found = estimate(units(truth, truth, pilot=30), METRIC, level_of)
    assert found.bias == (0.0, 0.0, 0.0)
    assert found.offline[1] <= found.ppi[0] <= found.offline[2]


def test_a_biased_surrogate_is_corrected_towards_the_pilot_backends_value() -> None:
    gen = np.random.default_rng(4)
    truth = gen.normal(0.5, 0.2, 600)
    found = estimate(units(truth, truth + 0.3, pilot=60), METRIC, level_of)
    assert found.bias[0] == pytest.approx(0.3)
    assert found.bias[1] > 0.25
    assert found.ppi[1] <= truth.mean() <= found.ppi[2]
    assert not found.offline[1] <= truth.mean() <= found.offline[2]


@pytest.mark.parametrize("noise", [0.0, 0.05, 0.2, 1.0, 5.0])
def test_power_tuning_never_widens_the_pilot_only_interval(noise: float) -> None:
    gen = np.random.default_rng(5)
    truth = gen.normal(0.5, 0.2, 300)
    found = estimate(units(truth, truth + gen.normal(0, noise, 300), pilot=25), METRIC, level_of)
    assert width(found.ppi) <= 1.02 * width(found.pilot)
    assert 0 <= found.weight <= 1


def test_a_contrast_is_estimated_on_the_units_paired_differences() -> None:
    """Two arms whose units share a large common part: the pilot's paired difference is far
    narrower than its two levels taken apart."""
    gen = np.random.default_rng(6)
    common = gen.normal(0.5, 0.3, 400)
    arms = np.stack([common, common + 0.1 + gen.normal(0, 0.02, 400)], axis=1)
    both = units(arms, arms, pilot=30)
    contrast = estimate(both, METRIC, difference)
    levels = [estimate(units(arms[:, a], arms[:, a], pilot=30), METRIC, level_of) for a in (0, 1)]
    assert contrast.pilot[0] == pytest.approx(0.1, abs=0.02)
    assert width(contrast.pilot) < 0.2 * np.hypot(*(width(x.pilot) for x in levels))


def test_a_domain_as_unit_gives_students_t_over_the_pilots_units() -> None:
    gen = np.random.default_rng(7)
    truth = gen.normal(0.5, 0.1, 12)
    parts = UnitParts(
        {(seed, "d"): np.array([[[truth[seed], 1.0]]]) for seed in range(12)},
        {(seed, "d"): np.array([[[truth[seed], 1.0]]]) for seed in range(6)},
    )
    found = estimate(parts, METRIC, level_of, least=6)
    assert "Student's t over 6 of 12 units" in found.method
    assert (found.strata, found.n_strata) == ("pooled", 1)
    assert found.pilot[0] == pytest.approx(truth[:6].mean())
    half = stats.t.ppf(0.975, 5) * np.std(truth[:6], ddof=1) * np.sqrt(1 / 6 - 1 / 12)
    assert width(found.pilot) == pytest.approx(2 * half)
    assert found.ppi[0] == pytest.approx(truth.mean())  # a perfect surrogate: the bulk's mean
    assert found.bias[0] == 0.0


def test_the_anytime_interval_holds_the_fixed_n_one_and_is_narrowest_near_its_first_look() -> None:
    spread = 0.1 / 1.96 * np.sqrt(100)  # a fixed-n interval of 0.5 +- 0.1 at 100 units
    low, high = anytime(0.5, spread, 100, 100)
    assert low < 0.4 and high > 0.6 and low + high == pytest.approx(1.0)
    widths = {f: np.subtract(*anytime(0.5, spread, 100, f)[::-1]) for f in (10, 100, 1000)}
    assert widths[100] < widths[10] and widths[100] < widths[1000]
    assert np.isnan(anytime(0.5, float("nan"), 100, 100)[0])
    few = np.subtract(*anytime(0.5, spread, 6, 6, df=5)[::-1])
    plain = np.subtract(*anytime(0.5, spread, 6, 6)[::-1])
    assert few / plain == pytest.approx(stats.t.ppf(0.975, 5) / stats.norm.ppf(0.975))


def test_a_cross_fitted_correction_reads_each_pilot_unit_by_the_fold_that_never_saw_it() -> None:
    """A surrogate calibrated on the pilot fits the pilot's units too well: in sample it
    matches them exactly while it misses every other unit by 0.2. Read in sample, the
    correction finds no error and the estimate keeps the miss; read by the held-out folds'
    predictions (``corrected``, the bulk their mean), the error is measured and removed."""
    gen = np.random.default_rng(9)
    truth = gen.normal(0.5, 0.2, 300)
    biased = units(truth, truth + 0.2, pilot=40, domains=1)
    in_sample = dict(biased.predicted)
    in_sample[(42, "d0")] = in_sample[(42, "d0")].copy()
    in_sample[(42, "d0")][:40, :, 0] = truth[:40, None]  # the pilot's units fitted exactly
    overfit = estimate(UnitParts(in_sample, biased.observed), METRIC, level_of)
    held_out = {s: p[:40] for s, p in biased.predicted.items()}
    cross_fit = estimate(UnitParts(biased.predicted, biased.observed, held_out), METRIC, level_of)
    assert overfit.bias[0] == pytest.approx(0.0)
    assert not overfit.ppi[1] <= truth.mean() <= overfit.ppi[2]
    assert cross_fit.bias[0] == pytest.approx(0.2)
    assert cross_fit.ppi[0] == pytest.approx(truth.mean())  # the error is a constant: exact


def strata_of(truth: np.ndarray, seeds: int, domains: int, pilot: int) -> UnitParts:
    """``seeds`` x ``domains`` strata of equal size, the first ``pilot`` units of each the
    pilot's; a perfect surrogate."""
    per = len(truth) // (seeds * domains)
    cut = {
        (seed, f"d{d}"): truth[(seed * domains + d) * per : (seed * domains + d + 1) * per]
        for seed in range(seeds)
        for d in range(domains)
    }

    def parts(values: np.ndarray) -> np.ndarray:
        return np.stack([values[:, None], np.ones((len(values), 1))], axis=-1)

    return UnitParts(
        {s: parts(v) for s, v in cut.items()}, {s: parts(v[:pilot]) for s, v in cut.items()}
    )


@pytest.mark.parametrize(
    ("seeds", "pilot", "level", "count"),
    [(2, 8, "seed x domain", 6), (3, 3, "domain", 3), (1, 3, "pooled", 1)],
)
def test_strata_of_too_few_pilot_units_are_merged_by_domain_then_pooled(
    seeds: int, pilot: int, level: str, count: int
) -> None:
    truth = np.random.default_rng(10).normal(0.5, 0.2, seeds * 3 * 40)
    found = estimate(strata_of(truth, seeds, 3, pilot), METRIC, level_of, least=8)
    assert (found.strata, found.n_strata) == (level, count)
    assert found.df == seeds * 3 * pilot - count
    assert f"within {count} {level} strata of 8 pilot units or more" in found.method
    assert found.pilot[1] < found.pilot[0] < found.pilot[2]


def test_strata_whose_pilot_units_agree_add_no_variance_until_merged() -> None:
    """Three pilot units a stratum, all alike within it and different across: resampled
    within each stratum the pilot's interval has no width at all; merged into strata of
    eight, the differences between them are its variance."""
    values = np.repeat(np.random.default_rng(11).normal(0.5, 0.2, 6), 40)
    parts = strata_of(values, 2, 3, 3)
    alone = estimate(parts, METRIC, level_of, least=3)
    merged = estimate(parts, METRIC, level_of, least=8)
    assert alone.strata == "seed x domain" and width(alone.pilot) == pytest.approx(0, abs=1e-12)
    assert merged.strata == "pooled" and width(merged.pilot) > 0.05


def test_fewer_pilot_units_than_asked_even_pooled_give_no_interval_and_say_why() -> None:
    truth = np.random.default_rng(12).normal(0.5, 0.2, 120)
    found = estimate(strata_of(truth, 1, 3, 2), METRIC, level_of, least=8)
    assert found.method.startswith("no interval: 6 pilot units, fewer than the 8")
    assert found.pilot[0] == pytest.approx(np.mean([truth[k * 40 : k * 40 + 2] for k in range(3)]))
    assert np.isnan(found.pilot[1]) and np.isnan(found.ppi[2]) and found.n_strata == 0
    assert np.isfinite(found.offline[1])  # the surrogate's own interval stands


def with_noise(parts: UnitParts, spread: float, plays: int = 3) -> UnitParts:
    """The same units with noise replays: each stratum's first 4 pilot units played
    ``plays`` times, every play off by normal noise of ``spread`` (0: all plays alike)."""
    gen = np.random.default_rng(13)
    noise = {}
    for stratum, observed in parts.observed.items():
        own = observed[:4]
        again = own[:, None].repeat(plays, axis=1).copy()
        again[:, 1:, :, 0] += gen.normal(0, spread, again[:, 1:, :, 0].shape)
        noise[stratum] = again
    return UnitParts(parts.predicted, parts.observed, noise=noise)


def test_the_expected_estimand_adds_the_draw_noise_the_finite_population_factor_removed() -> None:
    """Against the backend's expected behaviour the noise of the units never played twice
    stays: at half the units piloted the interval widens with the noise; plays that never
    differ add nothing, to the last digit."""
    truth = np.random.default_rng(14).normal(0.5, 0.1, 160)
    realised = strata_of(truth, 1, 2, 40)  # half of each stratum's 80 units
    plain = estimate(realised, METRIC, level_of, seed=5)
    quiet = estimate(with_noise(realised, 0.0), METRIC, level_of, seed=5)
    noisy = estimate(with_noise(realised, 0.3), METRIC, level_of, seed=5)
    assert quiet.pilot == plain.pilot and quiet.ppi == plain.ppi
    assert width(noisy.pilot) > 1.2 * width(plain.pilot)
    # the variance added is f n sigma^2 per stratum on the sum: sigma^2 / N on the mean
    added = width(noisy.pilot) ** 2 - width(plain.pilot) ** 2
    expected = (2 * stats.t.ppf(0.975, noisy.df)) ** 2 * 0.3**2 / 160
    assert added == pytest.approx(expected, rel=0.35)


def test_the_expected_estimand_over_whole_units_adds_their_values_noise() -> None:
    gen = np.random.default_rng(15)
    truth = gen.normal(0.5, 0.1, 12)
    parts = UnitParts(
        {(seed, "d"): np.array([[[truth[seed], 1.0]]]) for seed in range(12)},
        {(seed, "d"): np.array([[[truth[seed], 1.0]]]) for seed in range(6)},
    )
    plays = {
        (seed, "d"): np.array([[[[truth[seed] + e, 1.0]] for e in (0.0, 0.2, -0.2)]])
        for seed in range(3)
    }
    realised = estimate(parts, METRIC, level_of, least=6)
    expected = estimate(
        UnitParts(parts.predicted, parts.observed, noise=plays), METRIC, level_of, least=6
    )
    half = stats.t.ppf(0.975, 5)
    added = (width(expected.pilot) / 2 / half) ** 2 - (width(realised.pilot) / 2 / half) ** 2
    assert added == pytest.approx(0.2**2 / 12)  # the plays' variance over the 12 units


def test_a_pilot_drawn_at_other_shares_in_other_strata_weighs_each_unit_by_what_it_stands_for() -> (
    None
):
    """Two seeds of one domain, their units alike within and far apart between: a pilot of
    2 in 10 of the first and 8 in 10 of the second estimates the domain's mean, not its
    pilot's, and at one share everywhere every weight is exactly 1."""

    def parts(values: list[float]) -> np.ndarray:
        v = np.array(values)[:, None]
        return np.stack([v, np.ones_like(v)], axis=-1)

    predicted = {(1, "d"): parts([1.0] * 10), (2, "d"): parts([0.0] * 10)}
    uneven = UnitParts(predicted, {(1, "d"): parts([1.0] * 2), (2, "d"): parts([0.0] * 8)})
    found = estimate(uneven, METRIC, level_of)
    assert found.pilot[0] == pytest.approx(0.5) and found.ppi[0] == pytest.approx(0.5)
    weights = design_weights({(1, "d"): 2, (2, "d"): 8}, {(1, "d"): 10, (2, "d"): 10})
    assert weights[(1, "d")].tolist() == [2.5, 2.5] and weights[(2, "d")].tolist() == [0.625] * 8
    alike = design_weights({(1, "d"): 3, (2, "e"): 6}, {(1, "d"): 9, (2, "e"): 18})
    assert {float(w) for ws in alike.values() for w in ws} == {1.0}


def test_a_pilot_drawn_at_each_units_own_chance_weighs_it_by_one_over_that_chance() -> None:
    """Active allocation: units drawn at chances 0.8 and 0.2 stand for 1.25 and 5 units;
    the estimate is the Hajek-weighted mean, not the pilot's plain one."""

    def parts(values: list[float]) -> np.ndarray:
        v = np.array(values)[:, None]
        return np.stack([v, np.ones_like(v)], axis=-1)

    stratum = (1, "d")
    drawn = UnitParts(
        {stratum: parts([1.0, 0.0, 1.0, 0.0, 0.0])},
        {stratum: parts([1.0, 0.0])},
        inclusion={stratum: np.array([0.8, 0.2])},
    )
    found = estimate(drawn, METRIC, level_of, least=2)
    assert found.pilot[0] == pytest.approx(1.25 / 6.25)


def test_regression_adjustment_takes_the_surrogates_weight_as_it_is_and_ppi_clips_it() -> None:
    """A surrogate that predicts the opposite of the pilot: PPI++ gives it no weight, the
    regression a negative one that narrows the interval below the pilot's own."""
    truth = np.random.default_rng(3).normal(0.5, 0.2, 400)
    opposite = units(truth, 1 - truth, pilot=40)
    clipped = estimate(opposite, METRIC, level_of)
    regressed = estimate(opposite, METRIC, level_of, tuning="regression")
    assert clipped.weight == 0.0 and regressed.weight < -0.5
    assert width(regressed.ppi) < 0.5 * width(clipped.ppi)
    with pytest.raises(ValueError, match="unknown tuning 'ols'; known: ppi\\+\\+, regression"):
        estimate(opposite, METRIC, level_of, tuning="ols")
