"""The user's roles against each baseline on the same held-outs: a paired difference with a
95% interval from resampling people, which says whether a role beats, matches or trails a
baseline where two separate intervals overlapping would say nothing."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from recmarket.resampling import person_interval, sums_interval
from recmarket.validity.baselines import BASELINES as LADDER
from recmarket.validity.card import LEVEL, RESAMPLES, USER_ROLES, spearman
from recmarket.validity.measures import finish as finish_of
from recmarket.validity.scoring import Scored

BASELINES = (*LADDER, "person_mean", "always_5")

# One person's held-outs that both scorers have: (user's value, baseline's value) per row;
# for a correlation, (user's prediction, baseline's prediction, real).
Person = np.ndarray


@dataclass(frozen=True)
class Difference:
    """A user role's measure less a baseline's, on the held-outs both have."""

    measure: str
    protocol: str
    scorer: str
    baseline: str
    candidates: int
    pool: str
    n_people: int
    value: float
    low: float
    high: float

    def cells(self) -> list[str]:
        """The row as the card's page shows it."""
        shown = ["" if np.isnan(x) else f"{x:+.4f}" for x in (self.value, self.low, self.high)]
        draw = f"1 of {self.candidates}, {self.pool}" if self.candidates else ""
        return [self.measure, self.protocol, draw, f"{self.scorer} - {self.baseline}", *shown]


def _mean_difference(people: Sequence[Person], measure: str) -> float:
    rows = np.concatenate(people)
    finish = finish_of(measure)
    return float(finish(rows[:, 0].mean()) - finish(rows[:, 1].mean()))


def _correlation_difference(people: Sequence[Person], _: str) -> float:
    rows = np.concatenate(people)
    return spearman(rows[:, [0, 2]]) - spearman(rows[:, [1, 2]])


Pairing = tuple[str, str, str, str, int, str]  # measure, protocol, scorer, baseline, draw


def _paired(scored: Sequence[Scored]) -> dict[Pairing, dict[str, list[list[float]]]]:
    """Per (measure, protocol, user scorer, baseline), each person's paired rows."""
    found: dict[Pairing, dict[str, list[list[float]]]] = defaultdict(lambda: defaultdict(list))
    for s in scored:
        for (measure, protocol, scorer, count, pool), value in s.values.items():
            if scorer not in USER_ROLES:
                continue
            for baseline in BASELINES:
                other = s.values.get((measure, protocol, baseline, count, pool))
                if other is not None:
                    key = (measure, protocol, scorer, baseline, count, pool)
                    found[key][s.person].append([value, other])
        for (measure, protocol, scorer, count, pool), (said, real) in s.pairs.items():
            if scorer not in USER_ROLES:
                continue
            for baseline in BASELINES:
                other_pair = s.pairs.get((measure, protocol, baseline, count, pool))
                if other_pair is not None:
                    key = (measure, protocol, scorer, baseline, count, pool)
                    found[key][s.person].append([said, other_pair[0], real])
    return found


def _correlation_interval(people: Sequence[Person], seed: int) -> tuple[float, float]:
    """A rank correlations' difference resampled person by person (not a function of sums)."""
    return person_interval(
        people,
        lambda drawn: _correlation_difference(drawn, ""),
        seed=seed,
        draws=RESAMPLES,
        level=LEVEL,
    )


def _mean_interval(people: Sequence[Person], measure: str, seed: int) -> tuple[float, float]:
    """A mean difference resampled from each person's sums (every draw at once)."""
    finish = finish_of(measure)
    parts = np.array([[p[:, 0].sum(), p[:, 1].sum(), len(p)] for p in people])

    def difference(total: np.ndarray) -> np.ndarray:
        return np.asarray(finish(total[:, 0] / total[:, 2])) - finish(total[:, 1] / total[:, 2])

    return sums_interval(parts, difference, seed=seed, draws=RESAMPLES, level=LEVEL)


def differences(scored: Sequence[Scored], seed: int) -> list[Difference]:
    """Every user role's measure less every baseline's the held-outs have, each with a
    percentile bootstrap interval over people (``RESAMPLES`` draws, seeded)."""
    rows = []
    for key, per in sorted(_paired(scored).items()):
        measure, protocol, scorer, baseline, count, pool = key
        people = [np.array(v, dtype=float) for v in per.values()]
        correlation = len(people[0][0]) == 3
        if correlation:
            value = _correlation_difference(people, measure)
        else:
            value = _mean_difference(people, measure)
        low = high = float("nan")
        if np.isfinite(value) and len(people) >= 2:
            if correlation:
                low, high = _correlation_interval(people, seed)
            else:
                low, high = _mean_interval(people, measure, seed)
        rows.append(
            Difference(
                measure, protocol, scorer, baseline, count, pool, len(people), value, low, high
            )
        )
    return rows
