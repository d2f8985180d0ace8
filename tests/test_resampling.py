"""The person bootstrap: whole units resampled, seeded, NaN resamples left out."""

import math

import numpy as np
import pytest

from recmarket.resampling import mean_interval, person_interval, resampled


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


def test_each_pick_of_a_stratum_draws_one_unit_fewer_than_it_holds() -> None:
    strata = {"a": np.arange(5.0)[:, None], "b": np.ones((3, 1))}  # b: one category
    for size, drawn in resampled(strata, 40, np.random.default_rng(2), chunk=16):
        levels, counts = drawn["a"]
        assert len(levels) == 5 and (counts.sum(axis=1) == 4).all() and len(counts) == size
        levels, counts = drawn["b"]
        assert len(levels) == 1 and (counts[:, 0] == 2).all()


def test_two_stages_draw_each_replicate_as_often_as_it_was_picked() -> None:
    strata = {(1, "A"): np.arange(4.0)[:, None], (2, "A"): np.arange(6.0)[:, None]}
    [(_, drawn)] = list(resampled(strata, 500, np.random.default_rng(3), replicate=lambda s: s[0]))
    first, second = drawn[(1, "A")][1].sum(axis=1), drawn[(2, "A")][1].sum(axis=1)
    assert set(first / 3) | set(second / 5) <= {0.0, 1.0, 2.0}  # k picks: k (n - 1) units
    assert ((first / 3 + second / 5) == 2).all()  # two replicates picked in all, each draw
    assert (first == 0).any() and (second == 0).any()  # with replacement: one can miss


def test_a_stratum_of_one_unit_is_refused_and_a_mean_covers_its_value() -> None:
    with pytest.raises(ValueError, match="fewer than two units"):
        list(resampled({"a": np.ones((1, 1))}, 10, np.random.default_rng(0)))
    gen = np.random.default_rng(5)
    counts = gen.integers(1, 5, 200).astype(float)
    sums = gen.binomial(counts.astype(int), 0.3).astype(float)
    low, high = mean_interval(sums, counts, seed=1, draws=2_000)
    assert low < sums.sum() / counts.sum() < high and high - low < 0.2
