"""Decision weights per profile and the updater's thresholds, recovered from a run the
offline model simulated with known values."""

from collections import Counter

import numpy as np

from recmarket.agents.rules.params import UpdaterParams
from recmarket.agents.rules.user_params import DecisionParams
from recmarket.calibration.decision import decision_params, fit_decisions
from recmarket.calibration.labels import best_thresholds, fit_labels, label_agreement
from recmarket.calibration.observations import LabelObservation
from tests.calibration.conftest import PROFILES, RANKER, UPDATE


def test_decision_weights_are_recovered_within_three_standard_errors(simulated) -> None:
    # the user's prior belief is the simulating ranker's credence, as in the offline model
    fitted = fit_decisions(simulated[1].decisions, DecisionParams(), RANKER["credence"])
    assert set(fitted) == set(DecisionParams().profiles)
    for profile, truth in PROFILES.items():
        fit = fitted[profile]
        assert fit.converged and fit.observations == 300
        for e in fit.estimates:
            assert e.identified and e.se is not None, (profile, e)
            assert abs(e.value - truth[e.name]) <= 3 * e.se, (profile, e)
    # a profile left at its default is found there too, not at the others' values
    default = DecisionParams().for_profile("comparative_evaluation")
    found = fitted["comparative_evaluation"]
    assert all(abs(e.value - getattr(default, e.name)) <= 3 * e.se for e in found.estimates)
    assert decision_params(fitted, DecisionParams()).for_profile("novice_advice").claim > 0.5


def test_thresholds_are_recovered_exactly_where_the_gaps_pin_them(simulated) -> None:
    fitted = fit_labels(simulated[1].labels, UpdaterParams())
    found = {e.name: e.value for e in fitted.estimates}
    assert found == UPDATE and fitted.agreement == 1.0
    # labels of every kind, each often enough that the cut points are pinned by data, not
    # by one label taking nearly all (the majority is about 80%)
    kinds = Counter(o.label for o in simulated[1].labels)
    assert set(kinds) == {"high", "mixed", "low"} and min(kinds.values()) >= 0.05 * sum(
        kinds.values()
    ), kinds
    assert fitted.majority < 0.9


def test_noisy_labels_get_the_cut_points_that_agree_with_most_of_them() -> None:
    gen = np.random.default_rng(1)
    gaps = gen.choice(np.round(np.arange(-0.4, 0.81, 0.1), 1), size=600)
    labels = np.where(gaps >= 0.4, 2, np.where(gaps >= 0.2, 1, 0))
    flipped = gen.random(600) < 0.1
    labels[flipped] = gen.integers(3, size=flipped.sum())
    mixed, low, agreement = best_thresholds(gaps, labels)
    assert (mixed, low) == (0.2, 0.4) and 0.85 < agreement < 0.95
    names = {0: "high", 1: "mixed", 2: "low"}
    observations = [
        LabelObservation(("r", "d", i), float(g), names[int(x)])
        for i, (g, x) in enumerate(zip(gaps, labels, strict=True))
    ]
    fitted = fit_labels(observations, UpdaterParams())
    assert all(e.se is not None and e.se < 0.1 for e in fitted.estimates)
    assert label_agreement(observations, UpdaterParams()) == agreement
