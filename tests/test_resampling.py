"""The person bootstrap: whole units resampled, seeded, NaN resamples left out."""

import math

import numpy as np

from recmarket.resampling import person_interval


def mean_of(units):
    return float(np.mean(np.concatenate(units)))


def test_an_interval_of_many_people_holds_their_mean_and_is_reproducible() -> None:
    gen = np.random.default_rng(0)
    people = [gen.normal(1.0, 1.0, size=gen.integers(1, 5)) for _ in range(200)]
    low, high = person_interval(people, mean_of, seed=7, draws=500)
    assert low < mean_of(people) < high and high - low < 0.5
    assert person_interval(people, mean_of, seed=7, draws=500) == (low, high)
    assert person_interval(people, mean_of, seed=8, draws=500) != (low, high)


def test_whole_people_move_together() -> None:
    # two people, one all zeros and one all ones: a resample holds each whole, so the mean
    # of a resample is 0, the pooled share, or 1, never anything between those
    people = [np.zeros(1), np.ones(3)]
    low, high = person_interval(people, mean_of, seed=1, draws=400, level=0.5)
    assert {low, high} <= {0.0, 0.75, 1.0}


def test_too_few_people_or_undefined_resamples() -> None:
    assert all(math.isnan(x) for x in person_interval([np.ones(2)], mean_of, seed=1, draws=10))
    people = [np.array([1.0]), np.array([2.0]), np.array([3.0])]

    def undefined_when_one(units):  # a statistic with no value on one distinct number
        values = np.concatenate(units)
        return float("nan") if len(set(values.tolist())) == 1 else mean_of(units)

    low, high = person_interval(people, undefined_when_one, seed=3, draws=200)
    assert 1.0 <= low <= high <= 3.0
