"""The funnel every run reports, on hand-built episodes whose rates are known."""

import pytest

from recmarket.analysis.funnel import FORMER_NAMES, funnel, with_former_names
from recmarket.analysis.market_measures import MARKET_MEASURES, MarketMeasure, rate_of, shown_at


def episode(domain: str, **metrics) -> dict:
    row = {column: 0 for m in shown_at("funnel") for column in m.reads}
    row.update(domain=domain, top1_policy=None, purchased_policy=None, rep_label=None)
    row.update(metrics)
    return row


ROWS = [
    # A: 2 episodes, one bought its target after an exaggerated top-1
    episode(
        "A",
        target_present=1,
        target_shortlisted=1,
        target_top1=1,
        target_purchased=1,
        any_purchase=1,
        top1_policy="exaggeration",
        purchased_policy="exaggeration",
        rep_label="mixed",
        pool_size=6,
        target_copies=2,
    ),
    episode("A", no_purchase=1, top1_policy="strict", pool_size=4),
    # B: 4 episodes, one off-target purchase; one failed before any top-1
    episode(
        "B",
        target_present=1,
        any_purchase=1,
        off_target_purchase=1,
        top1_policy="balanced",
        purchased_policy="balanced",
        rep_label="high",
        pool_size=6,
    ),
    episode("B", target_present=1, no_purchase=1, top1_policy="balanced", pool_size=6),
    episode("B", no_purchase=1, top1_policy="strict", pool_size=6),
    episode("B", pool_size=0),
]


def test_domain_rates_are_shares_of_all_its_episodes() -> None:
    a, b = funnel(ROWS)["domains"]["A"], funnel(ROWS)["domains"]["B"]
    assert (a["episodes"], b["episodes"]) == (2, 4)
    assert a["target_purchase"] == 0.5 and b["target_purchase"] == 0.0
    assert b["target_present"] == 0.5  # the failed episode stays in the denominator
    assert b["any_purchase"] == 0.25 and b["off_target_purchase"] == 0.25
    assert b["no_purchase"] == 0.5
    assert a["pool_size"] == 5.0 and b["pool_size"] == 4.5
    assert a["target_copies"] == 1.0


def test_policy_shares_count_only_episodes_that_had_one() -> None:
    b = funnel(ROWS)["domains"]["B"]
    assert b["top1_share_by_policy"] == pytest.approx(
        {"strict": 1 / 3, "balanced": 2 / 3, "exaggeration": 0.0}
    )
    assert b["purchase_share_by_policy"] == {"strict": 0.0, "balanced": 1.0, "exaggeration": 0.0}


def test_macro_is_the_unweighted_mean_of_domains_not_the_pooled_rate() -> None:
    result = funnel(ROWS)["macro"]
    assert result["episodes"] == 6
    assert result["target_purchase"] == pytest.approx((0.5 + 0.0) / 2)  # pooled: 1/6
    assert result["target_present"] == pytest.approx((0.5 + 0.5) / 2)
    assert result["top1_share_by_policy"]["strict"] == pytest.approx((0.5 + 1 / 3) / 2)
    assert result["rep_labels"] == {"high": 1, "mixed": 1, "low": 0}


def test_an_empty_run_reports_zeros_rather_than_failing() -> None:
    result = funnel([])
    assert result["domains"] == {} and result["macro"]["episodes"] == 0
    assert result["macro"]["target_purchase"] == 0.0


def test_its_rows_are_the_measures_shown_at_the_funnel_each_by_one_name() -> None:
    summary = funnel(ROWS)["macro"]
    names = {m.name for m in shown_at("funnel")}
    assert names <= summary.keys()
    assert not set(FORMER_NAMES) & summary.keys()  # a former key only where JSON adds it
    assert {"target_purchase", "any_purchase", "pool_size"} <= names


def test_the_former_keys_carry_the_same_values_until_their_removal() -> None:
    summary = funnel(ROWS)["domains"]["B"]
    old = with_former_names(summary)
    assert old["purchase_rate"] == summary["any_purchase"] == 0.25
    assert old["target_purchased"] == summary["target_purchase"]
    assert old["mean_pool_size"] == summary["pool_size"]


def test_a_measure_registered_for_the_funnel_joins_it(monkeypatch) -> None:
    mine = MarketMeasure(
        "strict_top1_rate",
        "strict top-1",
        ("top1_policy",),
        "episodes whose Top-1 was strict",
        lambda cfg: rate_of("is_strict"),
        shown=frozenset({"funnel"}),
    )
    monkeypatch.setitem(MARKET_MEASURES._items, mine.name, mine)
    rows = [r | {"is_strict": r["top1_policy"] == "strict"} for r in ROWS]
    assert funnel(rows)["domains"]["B"]["strict_top1_rate"] == pytest.approx(1 / 4)
