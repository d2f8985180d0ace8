"""A decision at its expectation: stored answers validated, and a row's parts the
chance-weighted sum of the parts each answer gives."""

import json

import numpy as np
import pytest

from recmarket.analysis.bootstrap import mean_of
from recmarket.analysis.choices import (
    Alternatives,
    expected,
    read_alternatives,
    with_expectation,
)
from recmarket.analysis.market_measures import rate_of
from recmarket.analysis.ppi_units import unit_parts
from recmarket.analysis.shares import share_of
from recmarket.market.metrics import DECIDED

ROW = {
    "domain": "Video_Games",
    "ord": 3,
    "target_purchased": False,
    "any_purchase": True,
    "no_purchase": False,
    "off_target_purchase": True,
    "purchased_policy": "strict",
    "purchased_platform": "P2",
    "regret": 0.25,
    "target_top1": True,
}
TABLE = {
    "chance": [0.5, 0.3, 0.2],
    "target_purchased": [False, True, False],
    "any_purchase": [False, True, True],
    "no_purchase": [True, False, False],
    "off_target_purchase": [False, False, True],
    "purchased_policy": [None, "exaggeration", "strict"],
    "purchased_platform": [None, "P1", "P2"],
    "regret": [0.9, 0.0, 0.25],
}


def test_the_stored_columns_are_the_decided_ones() -> None:
    assert tuple(Alternatives.model_fields) == ("chance", *DECIDED)


def test_a_rate_and_a_share_at_the_decisions_expectation() -> None:
    row = with_expectation(ROW, Alternatives.model_validate(TABLE))
    bought = expected(rate_of("target_purchased").parts)
    assert np.asarray(bought(row)) == pytest.approx([0.3, 1.0])
    assert np.asarray(expected(rate_of("regret").parts)(row)) == pytest.approx(
        [0.5 * 0.9 + 0.2 * 0.25, 1.0]
    )
    policy = share_of(
        lambda r: r["purchased_policy"] is not None,
        lambda r: r["purchased_policy"] == "exaggeration",
    )
    shared = expected(policy.parts)(row)
    assert np.asarray(shared) == pytest.approx([0.3, 0.5])  # of the purchases expected
    # columns the decision does not set are the row's in every answer
    assert np.asarray(expected(rate_of("target_top1").parts)(row)) == pytest.approx([1.0, 1.0])


def test_a_row_without_answers_counts_as_played() -> None:
    parts = rate_of("target_purchased").parts
    assert list(expected(parts)(ROW)) == list(parts(ROW))
    value = mean_of(lambda r: r["regret"]).parts
    assert list(expected(value)(ROW)) == [0.25, 1.0]


@pytest.mark.parametrize(
    ("edit", "said"),
    [
        ({"chance": [0.5, 0.3]}, "one entry to every answer"),
        ({"chance": [0.5, 0.3, 0.3]}, "sum to 1.100000"),
        ({"chance": [1.2, -0.1, -0.1]}, "outside [0, 1]"),
        ({"regret": [0.9, 0.0, "high"]}, "valid number"),
        ({"spare": [1, 2, 3]}, "Extra inputs"),
    ],
)
def test_a_damaged_entry_is_refused_with_where_it_is(edit: dict, said: str) -> None:
    body = json.dumps(TABLE | edit)
    with pytest.raises(ValueError) as raised:
        read_alternatives(body, "store.sqlite: episode Video_Games:3")
    assert str(raised.value).startswith("store.sqlite: episode Video_Games:3: ")
    assert said in str(raised.value)


def test_text_that_is_not_json_is_refused() -> None:
    with pytest.raises(ValueError, match="unreadable"):
        read_alternatives("{chance: [1]", "here")


def test_a_units_prediction_takes_the_replays_chances_and_the_pilot_as_played() -> None:
    """unit_parts: a replay's row that carries its answers counts at their expectation
    (or as drawn, where asked: what the chances bought); the pilot's row as it played."""
    rows = [dict(ROW, replicate=42, sim_user=u, ord=u, episode_id=f"e{u}") for u in range(2)]
    replay = [with_expectation(r, Alternatives.model_validate(TABLE)) for r in rows]
    parts = rate_of("target_purchased").parts
    exact = unit_parts([[replay]], [rows[:1]], parts, "user")
    drawn = unit_parts([[replay]], [rows[:1]], parts, "user", exact_choices=False)
    (stratum,) = exact.predicted
    assert exact.predicted[stratum][:, 0, 0] == pytest.approx([0.3, 0.3])
    assert drawn.predicted[stratum][:, 0, 0] == pytest.approx([0.0, 0.0])
    assert exact.observed[stratum][:, 0, 0] == pytest.approx([0.0])
