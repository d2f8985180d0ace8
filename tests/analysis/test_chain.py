"""The accountability chain of a contrast: each link's change, the proposing family, the
moved Top-1s, and where the chain breaks."""

import pytest

from recmarket.analysis.bootstrap import Interval
from recmarket.analysis.chain import COLUMNS, Ceiling, breaks, ceiling, chain, chain_row
from recmarket.market.belief_grid import POINTS

DOMAINS = ("A", "B")


def row(domain: str, i: int, *, top1: int, target: int, policy: str, proposed: str) -> dict:
    """An episode of user i % 6 whose Top-1 item is ``top1`` (the target is ``target``)."""
    return {
        "domain": domain,
        "ord": i,
        "episode_id": f"{domain}/{i}",
        "sim_user": i % 6,
        "profile": "p",
        "condition": "local-rep",
        "replicate": 1,
        "top1_item": top1,
        "target_present": True,
        "target_policies": proposed,
        "target_shortlisted": True,
        "target_top1": top1 == target,
        "target_purchased": top1 == target and i % 2 == 0,
        "top1_policy": policy,
    }


def arms(moved_to_target: int) -> tuple[list[dict], list[dict]]:
    """48 episodes per domain, the target item 0 throughout. Under the base, episodes
    0-23 rank a decoy (an Exaggeration offer) first, 24-47 the target (a Strict one); the
    treated arm moves the first ``moved_to_target`` decoys' Top-1 to the target."""
    base, treated = [], []
    for domain in DOMAINS:
        for i in range(48):
            decoy = i < 24
            before = dict(top1=1 if decoy else 0, policy="exaggeration" if decoy else "strict")
            after = before if not (decoy and i < moved_to_target) else dict(top1=0, policy="strict")
            kept = dict(target=0, proposed="strict")
            base.append(row(domain, i, **before, **kept))
            treated.append(row(domain, i, **after, **kept))
    return base, treated


def test_a_chain_that_holds_measures_each_link_in_points() -> None:
    base, treated = arms(moved_to_target=18)
    links = chain(base, treated, "user", draws=4_000)
    assert links["target_top1"].estimate == pytest.approx(100 * 18 / 48)
    assert links["exaggeration_top1"].estimate == pytest.approx(-100 * 18 / 48)
    assert links["target_top1_via_strict"].estimate == pytest.approx(100 * 18 / 48)
    assert "target_top1_via_exaggeration" not in links  # no target proposed by it
    assert links["moved_to_target"].estimate == pytest.approx(100.0)  # every move went to it
    assert links["moved_from_target"].estimate == pytest.approx(0.0)
    assert links["target_purchased"].estimate == pytest.approx(100 * 9 / 48)
    assert breaks(links) == "holds"


def test_a_chain_without_moves_breaks_at_its_first_link() -> None:
    base, treated = arms(moved_to_target=0)
    links = chain(base, treated, "user", draws=2_000)
    assert breaks(links).startswith("breaks at Exaggeration's Top-1 share: no detectable move")
    assert links["moved_to_target"].estimate != links["moved_to_target"].estimate  # none moved


def test_a_purchase_change_without_a_top1_change_breaks_in_the_middle() -> None:
    """The issue's case: attention leaves Exaggeration, the purchase moves, the target's
    Top-1 does not."""
    flat = Interval(0.1, -1.0, 1.2, "cluster-user", 100, {})
    down = Interval(-12.6, -14.2, -10.9, "cluster-user", 100, {})
    up = Interval(2.0, 0.5, 3.5, "cluster-user", 100, {})
    links = {"exaggeration_top1": down, "target_top1": flat, "target_purchased": up}
    assert breaks(links) == "breaks at target Top-1: no detectable move, +0.10 [-1.00, +1.20]"
    wrong_way = {**links, "target_top1": Interval(-2.0, -3.0, -1.0, "cluster-user", 100, {})}
    assert breaks(wrong_way).startswith("breaks at target Top-1: moves the other way")


def test_a_chain_row_has_every_column_whichever_links_it_has() -> None:
    base, treated = arms(moved_to_target=6)
    links = chain(base, treated, "user", draws=1_000)
    del links["exaggeration_top1"]
    row = chain_row("x: local minus none", links)
    for column in COLUMNS:
        assert {column, f"{column}_low", f"{column}_high"} <= set(row)
    assert row["exaggeration_top1"] == "" and row["target_top1"] == pytest.approx(12.5)
    assert row["chain"] == breaks(links) and "bootstrap" in row["interval_method"]
    assert row["ceiling_low"] == row["ceiling_high"] == ""  # no grid stored
    assert row["instruction_target_top1"] == row["records_target_purchased"] == ""


def test_the_ceiling_is_the_range_of_target_top1_over_the_belief_grid() -> None:
    """Half the pools rank the target first at every belief, a quarter only at the grid's
    first point: the shares span 50 to 75%, and a contrast that breaks says so; where every
    belief gives the same share, it cannot express an effect instead."""
    base, treated = arms(moved_to_target=0)
    every = format((1 << len(POINTS)) - 1, "x")
    for i, r in enumerate(base):
        r["target_top1_grid"] = every if i % 48 < 24 else "1" if i % 48 < 36 else "0"
    found = ceiling(base)
    assert found == Ceiling(50.0, 75.0) and found.expressible
    links = chain(base, treated, "user", draws=1_000)
    assert breaks(links, found) == breaks(links)
    narrow = Ceiling(50.0, 51.5)
    assert breaks(links, narrow).startswith(
        "cannot express: over every belief the ranker's rule ranks the target first in "
        "50.0-51.5% of the base arm's pools (breaks at"
    )
    up = arms(moved_to_target=18)
    held = chain(*up, "user", draws=1_000)
    assert breaks(held, narrow) == "holds"  # a chain that holds is said to
    row = chain_row("x", links, found, {"instruction": held, "records": links})
    assert (row["ceiling_low"], row["ceiling_high"]) == (50.0, 75.0)
    assert row["instruction_target_top1"] == pytest.approx(100 * 18 / 48)
    assert row["records_target_top1"] == pytest.approx(0.0)
    assert ceiling([{**r, "target_top1_grid": None} for r in base]) == Ceiling(0.0, 0.0)
    assert ceiling([{k: v for k, v in r.items() if k != "target_top1_grid"} for r in base]) is None
