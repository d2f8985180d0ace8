from collections import Counter

import pytest

from recmarket.catalogue.policies import PAPER_POLICIES
from recmarket.market.compositions import assign_policies, parse_policy, platform_ids


@pytest.mark.parametrize("n", [6, 12, 18, 24])
def test_equal_composition_gives_each_family_a_third(n: int) -> None:
    assert Counter(assign_policies("equal", n)) == {p: n // 3 for p in PAPER_POLICIES}


def test_pairs_homogeneous_and_explicit_lists() -> None:
    assert Counter(assign_policies("balanced-exaggeration", 6)) == {
        "balanced": 3,
        "exaggeration": 3,
    }
    assert set(assign_policies("all-strict", 6)) == {"strict"}
    assert assign_policies("strict,promotional_exaggeration", 2) == (
        "strict",
        "exaggeration",
    )
    assert platform_ids(3) == ("P1", "P2", "P3")


def test_equal_composition_interleaves_so_rotations_change_pairings() -> None:
    policies = assign_policies("equal", 6)
    assert all(policies[j] != policies[(j + r) % 6] for j in range(6) for r in (1, 2))


def test_unknown_names_are_clear_errors() -> None:
    with pytest.raises(ValueError, match="unknown policy name 'hype'"):
        parse_policy("hype")
    with pytest.raises(ValueError, match="unknown composition 'thirds'"):
        assign_policies("thirds", 6)
    with pytest.raises(ValueError, match="assigns 2 platforms but the market has 6"):
        assign_policies("strict,balanced", 6)
