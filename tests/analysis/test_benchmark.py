"""The reputation benchmark's pairing and readings: each attack cell finds its honest cell
and its policy-only twin by settings, the attackers' share counts every seat they own, the
tolerated share reads the measured shares in order, and an entrant's wait is counted from
its entry. No test says which defence pays."""

import math
from typing import Any

from recmarket.analysis.benchmark import (
    attacker_share,
    baseline_key,
    cell_key,
    first_top1_waits,
    tolerated_shares,
    twin_key,
)
from recmarket.config import RunConfig


def market(attacks: dict[str, Any], **more: Any) -> RunConfig:
    return RunConfig.model_validate(
        {
            "condition": "local-rep",
            "reputation_scope": "shared",
            "seed": 2,
            "market": {"composition": "equal", "attacks": attacks, **more},
        }
    )


WHITEWASH = {"attack": "whitewash", "params": {"policy": "exaggeration"}}


def test_the_twin_presents_as_the_attack_and_drops_seats_that_present_as_their_own() -> None:
    """P3 and P6 are Exaggeration seats of the equal market: a whitewasher there presents
    as its composition does, so the twin keeps only P4 and P5, as null seats presenting
    Exaggeration; a forger presents as its own seat, so its twin is the honest cell."""
    attacked = market({seat: WHITEWASH for seat in ("P3", "P4", "P5", "P6")})
    null = {"attack": "null", "params": {"policy": "exaggeration"}}
    assert twin_key(attacked) == cell_key(market({"P4": null, "P5": null}))
    forge = market({"P4": {"attack": "forge", "params": {"share": 0.3}}})
    assert twin_key(forge) == cell_key(market({}))
    assert twin_key(market({"P4": {"attack": "inject"}})) is None  # its own twin
    assert twin_key(attacked) != twin_key(market({"P4": WHITEWASH}))


def test_every_defence_is_measured_against_the_shared_window_of_its_market() -> None:
    dues = market({}, reputation={"mechanism": "beta", "params": {"newcomer_low": 3}})
    proof = market({}, proof_of_purchase=True)
    local = RunConfig.model_validate({"reputation_scope": "local", "seed": 9})
    assert baseline_key(dues) == baseline_key(proof) == baseline_key(local) == cell_key(market({}))
    entrant = market({}, entrants="strict@100")
    assert baseline_key(entrant) != cell_key(market({}))  # the same entrants, undefended


def test_the_attackers_share_counts_every_seat_an_owner_runs() -> None:
    assert attacker_share(market({"P4": WHITEWASH, "P5": WHITEWASH})) == round(2 / 6, 3)
    sybil = market({"P4": {"attack": "sybil", "params": {"seats": 4}}})
    assert attacker_share(sybil) == round(4 / 9, 3)


def rows(*intervals: tuple[float, float, float]) -> list[dict[str, Any]]:
    return [
        {
            "attack": "a",
            "defence": "d",
            "attacker_share": s,
            "gain_top1_low": lo,
            "gain_top1_high": hi,
            "gain_over_policy_low": -lo,  # the other way round: its own reading
        }
        for s, lo, hi in intervals
    ]


def test_the_tolerated_share_is_the_last_share_before_a_gain_shows() -> None:
    found = rows((0.5, 0.02, 0.2), (0.167, -0.1, 0.1), (0.333, -0.3, -0.01))
    tolerated_shares(found)
    assert {r["tolerated_share"] for r in found} == {0.333}  # a loss to the attacker is no gain
    assert {r["tolerated_share_over_policy"] for r in found} == {0.0}  # read on its own
    shown_at_once = rows((0.167, 0.01, 0.1), (0.333, -0.1, 0.1))
    tolerated_shares(shown_at_once)
    assert {r["tolerated_share"] for r in shown_at_once} == {0.0}  # later covering is no help
    unread = rows((0.167, math.nan, math.nan))
    tolerated_shares(unread)
    assert unread[0]["tolerated_share"] == ""


def test_an_entrants_wait_counts_from_its_entry_and_is_censored_at_the_end() -> None:
    cfg = market({}, entrants="strict@4")
    entrant = cfg.market.entrant_ids[0]
    played = [
        {"replicate": 1, "domain": "A", "ord": o, "top1_platform": top}
        for o, top in enumerate(["P1", entrant, "P2", "P3", "P1", entrant, entrant])
    ]
    never = [{"replicate": 1, "domain": "B", "ord": o, "top1_platform": "P1"} for o in range(7)]
    assert first_top1_waits(cfg, played + never) == {(1, "A"): 1, (1, "B"): 3}
