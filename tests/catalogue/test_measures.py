"""The one vocabulary of measures: a measure's declaration says where it is shown, and the
registry refuses one that cannot be shown where it says."""

from dataclasses import replace

import pytest

from recmarket.analysis.market_measures import MARKET_MEASURES, rate_of
from recmarket.catalogue.measures import MarketMeasure, names_at, probe, shown_at


def measure(**changes) -> MarketMeasure:
    base = MarketMeasure("m", "m", ("target_top1",), "says", lambda cfg: rate_of("target_top1"))
    return replace(base, **changes)


def test_a_measure_is_refused_where_its_places_do_not_fit_its_unit() -> None:
    with pytest.raises(ValueError, match="unknown places"):
        probe(measure(shown=frozenset({"cells", "sidebar"})), None)
    with pytest.raises(ValueError, match="card alone"):
        probe(measure(unit="person", shown=frozenset({"cells"})), None)
    with pytest.raises(ValueError, match="card alone"):
        probe(measure(shown=frozenset({"card"})), None)
    probe(measure(), None)  # an episode measure, by default where intervals are


def test_each_place_lists_what_it_shows_and_one_column_has_one_name() -> None:
    assert "target_purchase" in names_at("cells") and "target_purchase" in names_at("funnel")
    assert "target_purchased" not in MARKET_MEASURES  # the record's column, not a measure
    read_alone = [m.reads[0] for m in MARKET_MEASURES if len(m.reads) == 1 and m.unit == "episode"]
    columns = [c for c in read_alone if c not in ("top1_policy", "purchased_policy")]
    assert len(columns) == len(set(columns))  # no column measured under two names
    with pytest.raises(ValueError, match="unknown place"):
        shown_at("sidebar")  # type: ignore[arg-type]


def test_a_measure_with_parameters_is_made_at_them_or_at_its_defaults() -> None:
    block = MARKET_MEASURES.get("top1_in_rounds")
    rows = [
        {"domain": "A", "ord": i, "top1_policy": "strict" if i else "exaggeration"}
        for i in range(4)
    ]
    params = MARKET_MEASURES.params("top1_in_rounds", {"first": 1, "last": 2})
    first_two = block.make(None, params).parts
    assert [first_two(r) for r in rows[:3]] == [(1.0, 1.0), (0.0, 1.0), (0.0, 0.0)]
    assert block.make(None).parts(rows[0]) == (1.0, 1.0)  # defaults: exaggeration, round 1
