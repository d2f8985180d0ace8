"""Pilot units for a target half-width, against hand-worked cases."""

import math

import pytest
from scipy import stats

from recmarket.analysis.pilot_sizing import units_for


def test_halving_the_width_of_a_small_pilot_in_a_large_study_takes_four_times_the_units() -> None:
    sized = units_for(0.04, 100, 10**9, 0.02, lost_df=None)
    assert sized.units == 400 and not sized.note


def test_drawing_without_replacement_needs_fewer_units_than_the_infinite_study() -> None:
    """h(n) = z s sqrt(1/n - 1/N): from n0 = 50 of N = 200, half the width needs
    1 / ((h / zs)^2 + 1/N) units, worked by hand here."""
    z = stats.norm.ppf(0.975)
    spread = 0.05 / (z * math.sqrt(1 / 50 - 1 / 200))
    wanted = 1 / ((0.025 / (z * spread)) ** 2 + 1 / 200)
    assert units_for(0.05, 50, 200, 0.025, lost_df=None).units == math.ceil(wanted)
    assert math.ceil(wanted) < 200  # never past every unit


def test_under_students_t_a_few_units_width_reads_as_less_spread() -> None:
    """At 4 units t's quantile (3.18) is far above the normal's (1.96): the same first width
    means a smaller spread, and the quantile at the planned size is near the normal's."""
    normal = units_for(0.1, 4, 60, 0.05, lost_df=None).units
    t = units_for(0.1, 4, 60, 0.05, lost_df=1).units
    assert normal is not None and t is not None and t < normal


@pytest.mark.parametrize(
    ("half", "n", "units", "said"),
    [
        (float("nan"), 10, 100, "no interval"),
        (0.1, 100, 100, "every unit"),
        (0.0, 10, 100, "no spread"),
    ],
)
def test_a_pilot_that_cannot_be_sized_says_why(half: float, n: int, units: int, said: str) -> None:
    assert said in units_for(half, n, units, 0.01, lost_df=None).note
