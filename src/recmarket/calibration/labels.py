"""The reputation updater's label thresholds, from the labels it wrote.

The offline updater labels a record by the gap between what the explanation claimed (less
what it disclosed) and the experience the review reports: ``low`` from ``low_gap`` up,
``mixed`` from ``mixed_gap`` up, else ``high``. Gaps are read through the lexicon, so they
take a few discrete values, and a threshold is identified only up to the interval between
the largest gap below it and the smallest at or above it: the estimate is the upper end
(the smallest gap that earned the worse label), which a rule of the form "gap >= threshold"
reproduces exactly; a bootstrap over the labels gives its standard error. Labels an LLM
wrote need not follow any threshold rule; the cut points that agree with the most labels
are taken, and the agreement says how well a threshold rule describes them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from recmarket.agents.rules.params import UpdaterParams
from recmarket.calibration.mle import Estimate
from recmarket.calibration.observations import LabelObservation

ORDER = {"high": 0, "mixed": 1, "low": 2}
BOOTSTRAP = 200


@dataclass(frozen=True)
class FittedLabels:
    """The updater's fitted thresholds, the share of labels they reproduce, and the share
    the most common label alone would."""

    estimates: tuple[Estimate, ...]
    agreement: float  # share of the labels the thresholds reproduce
    majority: float  # share of the most common label: what no threshold at all achieves
    observations: int


def predict(gaps: np.ndarray, mixed: float, low: float) -> np.ndarray:
    """The labels (0 high, 1 mixed, 2 low) the thresholds give these gaps."""
    return np.where(gaps >= low, 2, np.where(gaps >= mixed, 1, 0))


def best_thresholds(gaps: np.ndarray, labels: np.ndarray) -> tuple[float, float, float]:
    """(mixed_gap, low_gap, agreement): each the smallest observed gap from which the rule
    gives the worse label, chosen to agree with the most labels (ties: the lower cut)."""
    cuts = np.unique(gaps)
    cuts = np.append(cuts, cuts[-1] + 1.0)  # a cut above every gap: the label never given
    best = (float(cuts[-1]), float(cuts[-1]), -1.0)
    for i, mixed in enumerate(cuts):
        for low in cuts[i:]:
            agreement = float((predict(gaps, mixed, low) == labels).mean())
            if agreement > best[2] + 1e-12:
                best = (float(mixed), float(low), agreement)
    return best


def fit_labels(
    observations: Sequence[LabelObservation], prior: UpdaterParams, seed: int = 0
) -> FittedLabels:
    """The thresholds that reproduce the most labels, with bootstrap standard errors; a
    label never seen keeps its prior threshold."""
    if not observations:
        return FittedLabels(
            (
                Estimate("mixed_gap", prior.mixed_gap, None, False, False),
                Estimate("low_gap", prior.low_gap, None, False, False),
            ),
            float("nan"),
            float("nan"),
            0,
        )
    gaps = np.array([o.gap for o in observations])
    labels = np.array([ORDER[o.label] for o in observations])
    mixed, low, agreement = best_thresholds(gaps, labels)
    gen = np.random.default_rng(seed)
    draws = [
        best_thresholds(gaps[i], labels[i])[:2]
        for i in (gen.integers(len(gaps), size=len(gaps)) for _ in range(BOOTSTRAP))
    ]
    spread = np.std(np.array(draws), axis=0)
    seen = set(labels.tolist())
    told = {  # a threshold is fitted where labels on both of its sides were written
        "mixed_gap": bool({1, 2} & seen) and 0 in seen,
        "low_gap": 2 in seen and bool({0, 1} & seen),
    }
    return FittedLabels(
        tuple(
            Estimate(name, value, float(se), told[name], told[name])
            for name, value, se in (("mixed_gap", mixed, spread[0]), ("low_gap", low, spread[1]))
        ),
        agreement,
        Counter(labels.tolist()).most_common(1)[0][1] / len(labels),
        len(observations),
    )


def updater_params(fitted: FittedLabels, prior: UpdaterParams) -> UpdaterParams:
    """``prior`` with the fitted thresholds in place."""
    found = {e.name: e.value for e in fitted.estimates if e.fitted}
    return prior.model_copy(update=found)


def label_agreement(observations: Sequence[LabelObservation], params: UpdaterParams) -> float:
    """The share of observed labels these thresholds reproduce (NaN with none)."""
    if not observations:
        return float("nan")
    gaps = np.array([o.gap for o in observations])
    labels = np.array([ORDER[o.label] for o in observations])
    return float((predict(gaps, params.mixed_gap, params.low_gap) == labels).mean())
