"""The shares figures draw and the paper comparison measures, on hand-built episodes."""

import math

import pytest

from recmarket.analysis.shares import (
    label_shares,
    same_item_rate,
    same_item_wins,
    target_copy_share,
    top1_share_in_rounds,
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
    assert same_item_rate(ROWS) == pytest.approx((100 * 2 / 3 + 100 / 3) / 2)
    assert same_item_wins(ROWS, "exaggeration") == pytest.approx((50 + 100) / 2)


def test_label_shares_pool_domains_and_count_only_that_familys_records() -> None:
    shares = label_shares(ROWS, "strict")
    assert shares["high"] == pytest.approx(100 * 2 / 3) and shares["low"] == 0
    assert all(math.isnan(v) for v in label_shares(ROWS, "balanced").values())


def test_round_blocks_follow_each_domains_schedule() -> None:
    # rounds 1-50: A has its rows at ord 0 and 3 (1 of 2 exaggeration), B all 3 (1 of 3)
    assert top1_share_in_rounds(ROWS, "exaggeration", 1, 50) == pytest.approx((50 + 100 / 3) / 2)
    assert math.isnan(top1_share_in_rounds(ROWS, "exaggeration", 500, 600))


def test_the_targets_share_of_the_pool() -> None:
    # A: copies 1, 2, 1 of 4 -> 1/3; B: 1 of 4 each -> 1/4
    assert target_copy_share(ROWS) == pytest.approx(100 * (1 / 3 + 1 / 4) / 2)
