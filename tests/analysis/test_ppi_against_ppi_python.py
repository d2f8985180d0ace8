"""The prediction-powered estimate against ppi-python (Angelopoulos, Duchi and Zrnic's own
PPI++ for a mean) on the case both cover: one stratum, the mean of a 0/1 outcome, a pilot of
n units drawn from N the surrogate predicts. ppi-python treats the N as unlabeled data
drawn apart, this estimator as the market's units the pilot is drawn from, so at N >> n the
two are the same estimator: at one weight the same estimate, power-tuned weights that
agree, and intervals whose widths differ by the bootstrap's noise and the t against the
normal quantile."""

import numpy as np
import pytest

from recmarket.analysis.bootstrap import Metric, level_of, ratio
from recmarket.analysis.ppi import estimate
from recmarket.analysis.ppi_units import UnitParts

ppi_py = pytest.importorskip("ppi_py")

N, N_PILOT = 5_000, 250


def market(bias: float, related: bool, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The surrogate's chance of a hit on each of N units, and the pilot's 0/1 outcomes on
    the first N_PILOT: the surrogate's chance shifted by ``bias`` where ``related``, else a
    coin of its own."""
    gen = np.random.default_rng(seed)
    predicted = gen.uniform(0.1, 0.9, N)
    chance = np.clip(predicted[:N_PILOT] + bias, 0, 1) if related else np.full(N_PILOT, 0.5)
    return predicted, (gen.uniform(size=N_PILOT) < chance).astype(float)


def ours(predicted: np.ndarray, observed: np.ndarray):
    def parts(values: np.ndarray) -> np.ndarray:
        return np.stack([values, np.ones_like(values)], axis=-1)[:, None, :]

    units = UnitParts({(0, "D"): parts(predicted)}, {(0, "D"): parts(observed)})
    return estimate(units, Metric(lambda r: (0.0, 0.0), ratio), level_of, seed=1)


@pytest.mark.parametrize(("bias", "related"), [(0.1, True), (-0.2, True), (0.0, False)])
def test_the_estimate_and_interval_agree_with_ppi_pythons_ppi_plus_plus(
    bias: float, related: bool
) -> None:
    predicted, observed = market(bias, related, seed=7)
    found = ours(predicted, observed)
    at_ours = ppi_py.ppi_mean_pointestimate(
        observed, predicted[:N_PILOT], predicted, lam=found.weight
    )
    assert found.ppi[0] == pytest.approx(float(at_ours[0]), abs=1e-12)  # the same estimator
    tuned = float(ppi_py.ppi_mean_pointestimate(observed, predicted[:N_PILOT], predicted)[0])
    assert found.ppi[0] == pytest.approx(tuned, abs=0.01 * np.std(observed))  # its weight
    low, high = ppi_py.ppi_mean_ci(
        observed, predicted[:N_PILOT], predicted, alpha=0.05, lam=found.weight
    )
    theirs = float(high[0] - low[0])
    assert found.ppi[2] - found.ppi[1] == pytest.approx(theirs, rel=0.05)


@pytest.mark.parametrize(("bias", "related"), [(0.1, True), (0.0, False)])
def test_the_power_tuned_weights_agree(bias: float, related: bool) -> None:
    """Ours reads the weight off its resampling draws, ppi-python off the plug-in
    covariance (with its unlabeled data's share): the two estimate one lambda."""
    predicted, observed = market(bias, related, seed=8)
    found = ours(predicted, observed)
    tuned = float(ppi_py.ppi_mean_pointestimate(observed, predicted[:N_PILOT], predicted)[0])
    shift = predicted.mean() - predicted[:N_PILOT].mean()
    theirs = (tuned - observed.mean()) / shift  # their estimate = mean + lambda * shift
    assert found.weight == pytest.approx(theirs, abs=0.1)
