"""Policy mix and entrant attention by block of rounds, on hand-built episode rows."""

import json

import pytest

from recmarket.analysis.dynamics import entrant_top1_by_block, policy_mix_by_block, round_blocks


def test_blocks_cut_the_schedule_into_twelve_and_scale_with_it() -> None:
    assert round_blocks(600)[:2] == [(1, 50), (51, 100)] and len(round_blocks(600)) == 12
    assert round_blocks(60)[4] == (21, 25)  # an entry at 20 of a 0.1 scale starts block 5
    assert round_blocks(7) == [(i, i) for i in range(1, 8)]
    assert round_blocks(25)[-1] == (25, 25)


def row(domain: str, order: int, strategy: dict | None = None, top1: str | None = None) -> dict:
    return {
        "domain": domain,
        "ord": order,
        "lessons": json.dumps(strategy) if strategy is not None else None,
        "top1_platform": top1,
    }


def test_policy_mix_counts_adaptive_proposals_and_weighs_domains_equally() -> None:
    rows = [
        row("A", 0, {"P1": ["strict", 1.0], "P2": ["exaggeration:0.5", 0.0]}),
        row("A", 1, {"P1": ["strict:0.5", None]}),
        row("B", 0, {"P1": ["balanced", 0.0]}),
        row("B", 1, {}),
    ]
    (block, second) = policy_mix_by_block(rows, 24)[:2]
    assert block["rounds"] == "1-2"
    # A: 2 of 3 strict, 1 of 3 exaggeration; B: all balanced; each domain counts half
    assert block["shares"] == pytest.approx(
        {"strict": 1 / 3, "balanced": 0.5, "exaggeration": 1 / 6}
    )
    assert second["shares"] is None  # no episode in rounds 3-4


def test_policy_mix_reads_the_policies_a_run_played_an_installed_one_included() -> None:
    """A seat that played a plugin's policy shows it in the mix (it once counted as 0 under
    the paper's three), whether or not the plugin is installed where the rows are read."""
    rows = [
        row("A", 0, {"P1": ["hedged", 1.0], "P2": ["strict", 0.0]}),
        row("A", 1, {"P1": ["hedged", 0.0], "P2": ["hedged", 0.0]}),
    ]
    block = policy_mix_by_block(rows, 24)[0]
    assert block["shares"] == pytest.approx(
        {"strict": 0.25, "balanced": 0.0, "exaggeration": 0.0, "hedged": 0.75}
    )


def test_entrant_share_is_its_part_of_the_top1_positions_awarded() -> None:
    rows = [row("A", o, top1="P1") for o in range(4)]
    rows += [row("A", o, top1="P7" if o % 2 else "P2") for o in range(4, 8)]
    rows += [row("A", 8, top1=None)]  # nobody ranked: not in the denominator
    shares = entrant_top1_by_block(rows, 12, ["P7"])
    assert [b["shares"]["P7"] for b in shares[:8]] == [0.0] * 4 + [0.0, 1.0, 0.0, 1.0]
    assert shares[8]["shares"] is None
