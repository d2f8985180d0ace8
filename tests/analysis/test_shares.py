"""The shares figures draw and the paper comparison measures, on hand-built episodes."""

import math

import pytest

from recmarket.analysis.bootstrap import point
from recmarket.analysis.shares import (
    LABELS,
    label_share,
    same_item_share,
    same_item_win_share,
    target_pool_share,
    top1_in_rounds,
)
from tests.fixtures import episode_row

ROWS = [
    episode_row("A", same_item_top1=True, top1_policy="exaggeration", ord=0),
    episode_row("A", same_item_top1=True, top1_policy="strict", ord=60, target_copies=2),
    episode_row("B", same_item_top1=True, top1_policy="exaggeration", ord=0),
    episode_row("B", purchased_policy="strict", rep_label="high", ord=1),
    episode_row("B", purchased_policy="strict", rep_label="mixed", ord=2),
    episode_row("A", purchased_policy="strict", rep_label="high", ord=3),
]


def test_same_item_measures_are_macro_over_domains() -> None:
    assert point(ROWS, same_item_share()) == pytest.approx((100 * 2 / 3 + 100 / 3) / 2)
    assert point(ROWS, same_item_win_share("exaggeration")) == pytest.approx((50 + 100) / 2)


def test_label_shares_pool_domains_and_count_only_that_familys_records() -> None:
    shares = {label: point(ROWS, label_share("strict", label)) for label in LABELS}
    assert shares["high"] == pytest.approx(100 * 2 / 3) and shares["low"] == 0
    assert all(math.isnan(point(ROWS, label_share("balanced", label))) for label in LABELS)


def test_round_blocks_follow_each_domains_schedule() -> None:
    # rounds 1-50: A has its rows at ord 0 and 3 (1 of 2 exaggeration), B all 3 (1 of 3)
    early = point(ROWS, top1_in_rounds("exaggeration", 1, 50))
    assert early == pytest.approx((50 + 100 / 3) / 2)
    assert math.isnan(point(ROWS, top1_in_rounds("exaggeration", 500, 600)))


def test_the_targets_share_of_the_pool() -> None:
    # A: copies 1, 2, 1 of 4 -> 1/3; B: 1 of 4 each -> 1/4
    assert point(ROWS, target_pool_share()) == pytest.approx(100 * (1 / 3 + 1 / 4) / 2)
