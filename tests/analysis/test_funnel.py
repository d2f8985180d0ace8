"""The funnel every run reports, on hand-built episodes whose rates are known."""

import pytest

from recmarket.analysis.funnel import MEANS, RATES, funnel


def episode(domain: str, **metrics) -> dict:
    row = {column: 0 for column in (*RATES.values(), *MEANS.values())}
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
    assert a["target_purchased"] == 0.5 and b["target_purchased"] == 0.0
    assert b["target_present"] == 0.5  # the failed episode stays in the denominator
    assert b["purchase_rate"] == 0.25 and b["off_target_purchase_rate"] == 0.25
    assert b["no_purchase_rate"] == 0.5
    assert a["mean_pool_size"] == 5.0 and b["mean_pool_size"] == 4.5
    assert a["mean_target_copies"] == 1.0


def test_policy_shares_count_only_episodes_that_had_one() -> None:
    b = funnel(ROWS)["domains"]["B"]
    assert b["top1_share_by_policy"] == pytest.approx(
        {"strict": 1 / 3, "balanced": 2 / 3, "exaggeration": 0.0}
    )
    assert b["purchase_share_by_policy"] == {"strict": 0.0, "balanced": 1.0, "exaggeration": 0.0}


def test_macro_is_the_unweighted_mean_of_domains_not_the_pooled_rate() -> None:
    result = funnel(ROWS)["macro"]
    assert result["episodes"] == 6
    assert result["target_purchased"] == pytest.approx((0.5 + 0.0) / 2)  # pooled: 1/6
    assert result["target_present"] == pytest.approx((0.5 + 0.5) / 2)
    assert result["top1_share_by_policy"]["strict"] == pytest.approx((0.5 + 1 / 3) / 2)
    assert result["rep_labels"] == {"high": 1, "mixed": 1, "low": 0}


def test_an_empty_run_reports_zeros_rather_than_failing() -> None:
    result = funnel([])
    assert result["domains"] == {} and result["macro"]["episodes"] == 0
    assert result["macro"]["target_purchased"] == 0.0
