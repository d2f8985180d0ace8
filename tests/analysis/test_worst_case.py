"""The worst case beside the menu: a search's winner joins its family's rows under its
defence, lowers the tolerated share only where its held-out gain shows, and the defences are
ranked by the larger of the menu's and the search's gain, with the change of rank said."""

import math
from typing import Any

import pytest

from recmarket.analysis.worst_case import (
    EVERY,
    RANK_COLUMNS,
    WORST_FOUND_COLUMNS,
    add_worst_found,
    worst_case_ranks,
)

SHARES = (0.167, 0.333, 0.5, 0.667, 0.833)


def menu(attack: str, defence: str, gains: tuple[float, ...], tolerated: float) -> list[dict]:
    """A family's menu rows under a defence, a gain over the policy a share (interval
    +-0.02), with its tolerated share over the policy."""
    return [
        {
            "attack": attack,
            "defence": defence,
            "attacker_share": share,
            "gain_over_policy": g,
            "gain_over_policy_low": g - 0.02,
            "gain_over_policy_high": g + 0.02,
            "tolerated_share_over_policy": tolerated,
        }
        for share, g in zip(SHARES, gains, strict=True)
    ]


def found(attack: str, defence: str, gain: float, low: float, share: float) -> dict[str, Any]:
    return {
        "attack": attack,
        "defence": "name-of-" + defence,
        "defence_label": defence,
        "parameters": '{"share": 0.9}',
        "attacker_share": share,
        "gain_search": gain + 0.03,
        "gain_heldout": gain,
        "gain_heldout_low": low,
        "gain_heldout_high": gain + (gain - low),
    }


def test_a_winner_whose_gain_shows_lowers_the_tolerated_share_below_its_share() -> None:
    table = menu("forge", "window", (0.0, 0.0, 0.0, 0.0, 0.05), 0.667)
    table += menu("flood", "window", (0.0,) * 5, 0.833)
    add_worst_found(table, [found("forge", "window", 0.08, 0.03, 0.5)])
    forge = [r for r in table if r["attack"] == "forge"]
    assert {r["tolerated_share_worst"] for r in forge} == {0.333}  # shown at 0.5
    assert {r["worst_found"] for r in forge} == {0.08}
    assert [r["worst_found_search"] for r in forge] == pytest.approx([0.11] * 5)
    flood = [r for r in table if r["attack"] == "flood"]  # not searched: blank
    assert all(r[c] == "" for r in flood for c in WORST_FOUND_COLUMNS)


@pytest.mark.parametrize(
    ("low", "share", "tolerated"),
    [(-0.01, 0.5, 0.667), (0.01, 0.1, 0.0), (0.01, 0.833, 0.667)],
)
def test_the_worst_case_tolerated_share_reads_only_a_gain_that_shows(
    low: float, share: float, tolerated: float
) -> None:
    table = menu("forge", "window", (0.0,) * 5, 0.667)
    add_worst_found(table, [found("forge", "window", 0.05, low, share)])
    assert table[0]["tolerated_share_worst"] == tolerated


def test_defences_rank_by_the_menu_and_by_the_larger_of_menu_and_search() -> None:
    table = menu("forge", "a", (0.01, 0.02, 0.03, 0.04, 0.05), 0.833)
    table += menu("forge", "b", (0.02, 0.04, 0.06, 0.08, 0.10), 0.5)
    table += menu("inject", "a", (0.5,) * 5, 0.0)  # not searched: outside both rankings
    worst = [found("forge", "a", 0.20, 0.15, 0.333), found("forge", "b", 0.02, -0.01, 0.5)]
    add_worst_found(table, worst)
    ranked = worst_case_ranks(table, worst)
    assert [r["attack"] for r in ranked] == [EVERY] * 2 + ["forge"] * 2  # one family searched
    ranks = {r["defence"]: r for r in ranked if r["attack"] == EVERY}
    a, b = ranks["a"], ranks["b"]
    assert (a["menu_worst"], a["rank_menu"], b["menu_worst"], b["rank_menu"]) == (0.05, 1, 0.1, 2)
    assert (a["worst_case"], a["worst_case_source"]) == (0.20, "search, held-out seeds")
    assert (b["worst_case"], b["worst_case_source"]) == (0.10, "menu")  # the search found less
    assert (a["rank_worst"], b["rank_worst"]) == (2, 1)
    assert (a["rank_change"], b["rank_change"]) == (1, -1)
    assert a["worst_above_menu"] and not b["worst_above_menu"]
    assert (a["tolerated_share_menu"], a["tolerated_share_worst"]) == (0.833, 0.167)
    assert b["tolerated_share_worst"] == 0.5
    assert list(a) == list(RANK_COLUMNS)


def test_equal_worst_cases_share_the_smaller_rank() -> None:
    table = menu("forge", "a", (0.1,) * 5, 0.0) + menu("forge", "b", (0.1,) * 5, 0.0)
    ranks = worst_case_ranks(table, [found("forge", "c", 0.0, -0.1, 0.5)])
    assert [(r["rank_menu"], r["rank_worst"]) for r in ranks] == [(1, 1)] * 4
    assert not any(math.isnan(r["worst_case"]) for r in ranks)


def test_each_family_ranks_the_defences_apart_from_the_families_together() -> None:
    """Flood's menu gains are the larger, so they rank the defences together; forge's
    search reorders forge's own ranking and leaves the one together alone."""
    table = menu("forge", "a", (0.01,) * 5, 0.833) + menu("forge", "b", (0.02,) * 5, 0.833)
    table += menu("flood", "a", (0.30,) * 5, 0.0) + menu("flood", "b", (0.40,) * 5, 0.0)
    worst = [found("forge", "a", 0.10, 0.05, 0.5), found("flood", "b", 0.0, -0.1, 0.5)]
    add_worst_found(table, worst)
    ranked = worst_case_ranks(table, worst)
    order = {(r["attack"], r["defence"]): (r["rank_menu"], r["rank_worst"]) for r in ranked}
    assert order[EVERY, "a"] == (1, 1) and order[EVERY, "b"] == (2, 2)
    assert order["forge", "a"] == (1, 2) and order["forge", "b"] == (2, 1)
    assert order["flood", "a"] == (1, 1) and order["flood", "b"] == (2, 2)
