"""Market-level measures on hand-worked cases: an index is checked where its value is known,
and a cell's measures come with intervals."""

import numpy as np
import pytest

from recmarket.analysis.bootstrap import point
from recmarket.analysis.market_measures import (
    concentration,
    entrant_access,
    exposure_gini,
    gini,
    hhi,
    market_measures,
    owners,
)
from recmarket.config import RunConfig

SEATS = {f"P{i}": f"P{i}" for i in range(1, 7)}


def test_hhi_is_one_over_n_for_equal_shares_and_one_for_a_monopoly() -> None:
    assert hhi(np.full(6, 1 / 6)) == pytest.approx(1 / 6)
    assert hhi(np.array([1.0, 0, 0, 0])) == 1.0
    assert hhi(np.array([0.5, 0.25, 0.25])) == pytest.approx(0.375)


def test_gini_is_zero_for_equal_exposure_and_n_minus_one_over_n_for_one_holder() -> None:
    assert gini(np.full(5, 3.0)) == 0.0
    assert gini(np.array([0, 0, 0, 12.0])) == pytest.approx(3 / 4)
    assert gini(np.array([[1.0, 1.0], [0.0, 2.0]])).tolist() == [0.0, 0.5]  # vectorised


def rows(top1: list[str | None], domain: str = "D") -> list[dict]:
    return [
        {"domain": domain, "ord": i, "top1_platform": p, "shown_platforms": p}
        for i, p in enumerate(top1)
    ]


def test_top1_concentration_counts_owners_and_skips_episodes_without_a_top1() -> None:
    even = rows(["P1", "P2", "P3", "P4", "P5", "P6", None])
    assert point(even, concentration("top1_platform", SEATS)) == pytest.approx(1 / 6)
    sybil = {**SEATS, "P7": "P4", "P8": "P4"}
    owned = rows(["P4", "P7", "P8", "P1"])  # one owner's three seats, and P1
    assert point(owned, concentration("top1_platform", sybil)) == pytest.approx(0.75**2 + 0.25**2)


def test_exposure_gini_reads_every_shortlist_place() -> None:
    places = [{"domain": "D", "ord": 0, "shown_platforms": "P1,P2,P3"}]
    places.append({"domain": "D", "ord": 1, "shown_platforms": "P1,P2,P3"})
    # P1-P3 hold 2 places each, P4-P6 none: mean |x_i - x_j| = 18 * 2 / 36 = 1, mean 1
    assert point(places, exposure_gini(SEATS)) == pytest.approx(0.5)


def test_a_cells_measures_carry_intervals_and_say_how_they_were_made() -> None:
    cfg = RunConfig(condition="no-rep")
    cell = [
        {
            "domain": "D",
            "ord": i,
            "episode_id": f"D/u{i}",
            "sim_user": i,
            "target_purchased": i % 3 == 0,
            "regret": None if i == 5 else 0.1 * (i % 4),
            "off_target_purchase": i % 3 == 1,
            "no_purchase": i % 3 == 2,
            "top1_platform": f"P{1 + i % 6}",
            "purchased_platform": f"P{1 + i % 2}" if i % 3 != 2 else None,
            "shown_platforms": "P1,P2,P3",
            "top1_policy": "exaggeration" if i % 2 else "strict",
        }
        for i in range(60)
    ]
    found = market_measures(cfg, cell, draws=500)
    assert found["hhi_top1"] == pytest.approx(1 / 6, abs=1e-4)
    assert found["hhi_purchase"] == pytest.approx(0.5, abs=1e-4)
    assert found["target_purchase"] == pytest.approx(1 / 3, abs=1e-4)
    assert found["exaggeration_top1"] == 0.5
    for name in ("target_purchase", "regret", "off_target_purchase", "no_purchase"):
        assert found[f"{name}_low"] <= found[name] <= found[f"{name}_high"], name
    # An index of shares is biased upward by sampling noise: at equal shares every resample
    # is at least as concentrated, so the interval lies at or above the estimate (stated)
    assert 1 / 6 - 1e-4 <= found["hhi_top1_low"] <= found["hhi_top1_high"] < 0.3
    assert found["measures_interval"] == "percentile bootstrap (paired-request), 500 draws"
    assert found["entrant_shortlist_share"] == ""  # no entrant in this market


def test_entrants_access_counts_their_places_and_their_wait_for_a_record() -> None:
    cfg = RunConfig.model_validate(
        {"market": {"entrants": "strict@2"}, "episodes": {"requests": 12}}
    )
    assert owners(cfg)["P7"] == "P7"
    cell = [
        {"domain": "D", "ord": 0, "shown_platforms": "P1,P2,P3", "rep_platform": None},
        {"domain": "D", "ord": 2, "shown_platforms": "P7,P2,P3", "rep_platform": "P2"},
        {"domain": "D", "ord": 5, "shown_platforms": "P7,P1,P3", "rep_platform": "P7"},
    ]
    for row in cell:
        row["rep_label"] = "high" if row["rep_platform"] else None
    found = entrant_access(cfg, cell)
    assert found == {"entrant_shortlist_share": round(2 / 6, 4), "entrant_rounds_to_record": 3.0}
