"""Attacks that platforms play against the records: each acts through its documented
mechanism, an attack switched off leaves the honest cell's records, and a resumed attack
cell stores what the uninterrupted one did. No test says which attack pays."""

import json
import sqlite3
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from recmarket.agents.rules import lexicon
from recmarket.agents.rules.params import RankerParams
from recmarket.catalogue.attack_conduct import BaitAndSwitch, Whitewash
from recmarket.catalogue.attack_params import BaitParams
from recmarket.catalogue.attack_params import WhitewashParams as WW
from recmarket.catalogue.attacks import ATTACKS, Forgery
from recmarket.catalogue.payloads import PAYLOAD_FAMILIES
from recmarket.cli import app
from recmarket.config import RunConfig
from recmarket.run.replay import calls_of
from recmarket.run.runner import run
from recmarket.run.store import RunStore

BASE: dict[str, Any] = {
    "domains": ["Video_Games"],
    "condition": "local-rep",
    "episodes": {"requests": 48, "users_per_profile": 1},
    "seed": 3,
}


def draw() -> np.random.Generator:
    return np.random.default_rng(0)


def test_a_whitewasher_re_enters_under_a_fresh_name_when_its_reward_stays_low() -> None:
    made = Whitewash(WW(window=4, below=0.5, reentries=2, absent_rounds=5), "exaggeration")
    assert made.identity("P4") == "P4" and made.choose(draw).policy == "exaggeration"
    for reward in (0.0, 1.0, 0.0):
        made.observe("exaggeration", reward)
    made.period_ended(12)  # three proposals: not yet a full window
    assert made.identity("P4") == "P4"
    made.observe("exaggeration", 0.0)
    made.period_ended(24)  # 1 in 4 < 0.5: caught
    assert made.identity("P4") == "P4-2"
    assert not made.present(28) and made.present(29)  # it sits out five rounds
    for _ in range(2):
        for _ in range(4):
            made.observe("exaggeration", 0.0)
        made.period_ended(36)
    assert made.identity("P4") == "P4-3"  # at most two re-entries


def test_bait_and_switch_is_honest_until_its_trigger_and_oscillates_when_caught() -> None:
    made = BaitAndSwitch(BaitParams(switch_round=24, oscillate=True, window=2, below=0.5))
    made.period_ended(12)
    assert made.choose(draw).policy == "strict"
    made.period_ended(24)
    assert made.choose(draw).policy == "exaggeration"
    for _ in range(2):
        made.observe("exaggeration", 0.0)
    made.period_ended(36)
    assert made.choose(draw).policy == "strict"  # caught: honest again
    for _ in range(2):
        made.observe("strict", 1.0)
    made.period_ended(48)
    assert made.choose(draw).policy == "exaggeration"  # recovered: switches back
    by_rewards = BaitAndSwitch(BaitParams(switch_after=2))
    by_rewards.observe("strict", 1.0)
    by_rewards.period_ended(12)
    assert by_rewards.choose(draw).policy == "strict"
    by_rewards.observe("strict", 1.0)
    by_rewards.period_ended(24)
    assert by_rewards.choose(draw).policy == "exaggeration"


def cell(tmp_path: Path, name: str, **settings: Any) -> dict[str, Any]:
    """A small cell's episode rows (schedule order) and every call, by episode."""
    data = {**BASE, **settings, "market": {"composition": "equal", **settings.get("market", {})}}
    out = tmp_path / name
    run(RunConfig.model_validate(data), out).store.close()
    with RunStore.read(out) as store:
        rows = sorted(store.episodes(), key=lambda r: r["ord"])
        (domain,) = {r["domain"] for r in rows}
        calls = calls_of(store, domain, [r["ord"] for r in rows])
    return {"rows": rows, "calls": calls}


def decided(found: dict[str, Any]) -> tuple[list[dict[str, Any]], dict[int, Any]]:
    """The records that say what happened: every row but the lessons an adaptive seat kept
    (bookkeeping of what it observed, stored only for seats that react), and the calls."""
    rows = [{k: v for k, v in r.items() if k != "lessons"} for r in found["rows"]]
    return rows, found["calls"]


OFF = {
    "null": {},
    "whitewash": {"policy": "strict", "reentries": 0},
    "bait-and-switch": {"honest": "strict"},  # no trigger: never switches
    "sybil": {"seats": 1},
    "forge": {"share": 0.0},
    "inject": {"family": None},
    "flood": {"records": 0},
    "collude": {"seats": 1, "share": 0.0},
    "camouflage": {"share": 0.0},
    "sybil+camouflage": {"sybil": {"seats": 1}, "camouflage": {"share": 0.0}},
    "sybil+whitewash": {"sybil": {"seats": 1}, "whitewash": {"policy": "strict", "reentries": 0}},
    "collude+flood": {"collude": {"seats": 1, "share": 0.0}, "flood": {"records": 0}},
}


@pytest.mark.slow  # end to end: keeps the default selection under 4 minutes
@pytest.mark.parametrize(
    "scope",
    ["shared", pytest.param("local", marks=pytest.mark.slow)],  # the same, per user
)
def test_an_attack_switched_off_leaves_the_honest_cells_records(tmp_path: Path, scope: str) -> None:
    honest = decided(cell(tmp_path, "honest", reputation_scope=scope))
    for behaviour, params in OFF.items():
        setting = {"P4": {"attack": behaviour, "params": params}}
        attacked = cell(tmp_path, behaviour, reputation_scope=scope, market={"attacks": setting})
        assert decided(attacked) == honest, behaviour
    assert set(OFF) == set(ATTACKS.names())  # every built-in behaviour has an off switch


def test_forged_records_reach_shared_histories_and_never_a_users_own(tmp_path: Path) -> None:
    forge = {"P4": {"attack": "forge", "params": {"share": 0.5, "rival": "P3"}}}
    shared = cell(tmp_path, "shared", reputation_scope="shared", market={"attacks": forge})
    forged = [json.loads(r["written"]) for r in shared["rows"] if r["written"]]
    assert 10 < len(forged) < 40  # about half of 48 episodes
    assert {(f[0][0], f[0][1], f[0][3]) for f in forged} == {("P4", "high", "forged")}
    assert {tuple(f[1][:2]) for f in forged} == {("P3", "low")}
    later = [c.input for r in shared["rows"][30:] for c in shared["calls"][r["ord"]]]
    shown = [i["histories"]["P4"] for i in later if i.get("histories")]
    assert any(r["note"].startswith("Claims matched my use exactly") for h in shown for r in h)
    local = cell(tmp_path, "local", reputation_scope="local", market={"attacks": forge})
    assert not any(r["written"] for r in local["rows"])
    assert decided(local) == decided(cell(tmp_path, "honest", reputation_scope="local"))


def forged_lists(found: dict[str, Any]) -> list[list[tuple[str, str]]]:
    """Each forging episode's fake records, as (platform, label)."""
    return [
        [(w[0], w[1]) for w in json.loads(r["written"]) if w[3] == "forged"]
        for r in found["rows"]
        if r["written"]
    ]


def test_a_flooder_writes_its_count_of_fake_praise_each_time_it_forges(tmp_path: Path) -> None:
    flood = {"P4": {"attack": "flood", "params": {"share": 0.5, "records": 4}}}
    found = cell(tmp_path, "flood", reputation_scope="shared", market={"attacks": flood})
    forged = forged_lists(found)
    assert 10 < len(forged) < 40  # about half of 48 episodes
    assert all(f == [("P4", "high")] * 4 for f in forged)


def test_colluding_seats_praise_each_other_and_damn_their_rival(tmp_path: Path) -> None:
    collude = {"P4": {"attack": "collude", "params": {"seats": 3, "share": 0.5, "rival": "P1"}}}
    found = cell(tmp_path, "collude", reputation_scope="shared", market={"attacks": collude})
    forged = forged_lists(found)
    assert forged and all(
        f == [("P4", "high"), ("P7", "high"), ("P8", "high"), ("P1", "low")] for f in forged
    )


def test_a_camouflaging_seat_exaggerates_on_about_its_share_of_proposals(tmp_path: Path) -> None:
    camouflage = {"P4": {"attack": "camouflage", "params": {"share": 0.3}}}
    found = cell(tmp_path, "camo", market={"attacks": camouflage})
    policies = [
        c.input["policy"]
        for r in found["rows"]
        for c in found["calls"][r["ord"]]
        if c.role == "explain" and c.input["platform_id"] == "P4"
    ]
    assert set(policies) == {"strict", "exaggeration"}
    assert 0.1 < policies.count("exaggeration") / len(policies) < 0.5


def test_each_attack_names_how_its_policy_only_twin_presents() -> None:
    """The twin presents as the attack does, with nothing else: a whitewasher's policy, the
    bait's and camouflage's ``then``, the composition's for the others; inject is its own."""
    made = {name: ATTACKS.get(name) for name in ATTACKS.names()}
    params = {name: a.Params() for name, a in made.items()}
    presents = {name: a.presents("balanced", params[name]) for name, a in made.items()}
    assert presents["whitewash"] == presents["bait-and-switch"] == "exaggeration"
    assert presents["camouflage"] == "exaggeration"
    assert {presents[n] for n in ("null", "sybil", "forge", "flood", "collude")} == {"balanced"}
    assert [n for n, a in made.items() if a.is_its_presentation()] == ["inject"]
    assert presents["inject"] != "balanced"
    # a composite's twin presents as its conduct does, else as its parts present
    assert presents["sybil+camouflage"] == presents["sybil+whitewash"] == "exaggeration"
    assert presents["collude+flood"] == "balanced"


def test_a_composite_plays_both_parts_by_its_declared_rule(tmp_path: Path) -> None:
    """Sybil+Camouflage: the owner's three seats camouflage alike; Collude+Flood: each time
    the colluders forge, the flood's count of praise for every seat they own, and the
    rival damned once."""
    both = {"sybil": {"seats": 3}, "camouflage": {"share": 0.3}}
    found = cell(
        tmp_path, "sc", market={"attacks": {"P4": {"attack": "sybil+camouflage", "params": both}}}
    )
    shown: dict[str, set[str]] = {}
    for r in found["rows"]:
        for c in found["calls"][r["ord"]]:
            if c.role == "explain" and c.input["platform_id"] in ("P4", "P7", "P8"):
                shown.setdefault(c.input["platform_id"], set()).add(c.input["policy"])
    assert shown == {seat: {"strict", "exaggeration"} for seat in ("P4", "P7", "P8")}
    params = {"collude": {"seats": 2, "share": 0.5, "rival": "P1"}, "flood": {"records": 3}}
    attacks = {"P4": {"attack": "collude+flood", "params": params}}
    forged = forged_lists(
        cell(tmp_path, "cf", reputation_scope="shared", market={"attacks": attacks})
    )
    assert 10 < len(forged) < 40  # the larger share, 0.5 of 48 episodes
    assert all(f == [("P4", "high")] * 3 + [("P7", "high")] * 3 + [("P1", "low")] for f in forged)


def test_a_composite_is_refused_where_its_rule_cannot_join_its_parts() -> None:
    for name, says in (
        ("whitewash+camouflage", "both choose the seat's presentation"),
        ("sybil+sybil", "two different attacks"),
        ("sybil+camoflage", "unknown attack name 'camoflage'; known: null"),
        ("sybil+collude+flood", "each a single one"),
    ):
        with pytest.raises(ValueError, match=says):
            ATTACKS.get(name)
    with pytest.raises(ValueError, match=r"params\.sybil\.seat: Extra inputs"):
        RunConfig.model_validate(
            {
                "market": {
                    "attacks": {"P4": {"attack": "sybil+forge", "params": {"sybil": {"seat": 2}}}}
                }
            }
        )
    made = ATTACKS.get("forge+flood")  # any two join, on demand
    params = ATTACKS.params("forge+flood", {"forge": {"share": 0.2, "rival": "P2"}})
    assert made.forgery(params) == Forgery(0.3, "P2", praise=5)  # flood's share, both forge
    assert made.copies(params) == 0 and not made.adaptive


def test_sybil_seats_carry_their_owners_catalog_and_policy(tmp_path: Path) -> None:
    sybil = {"P4": {"attack": "sybil", "params": {"seats": 3}}}
    found = cell(tmp_path, "sybil", reputation_scope="shared", market={"attacks": sybil})
    explained = [
        c.input
        for r in found["rows"]
        for c in found["calls"][r["ord"]]
        if c.role == "explain" and c.input["platform_id"] in ("P4", "P7", "P8")
    ]
    assert {i["platform_id"] for i in explained} == {"P4", "P7", "P8"}
    assert {i["policy"] for i in explained} == {"strict"}
    with pytest.raises(ValueError, match="Sybil seats and late entrants"):
        RunConfig.model_validate({"market": {"attacks": sybil, "entrants": "strict@10"}})


def test_a_whitewasher_shows_its_new_name_to_the_user_agent_and_the_records(
    tmp_path: Path,
) -> None:
    params = {"window": 6, "below": 0.34, "reentries": 3}
    ww = {"P4": {"attack": "whitewash", "params": params}}
    found = cell(tmp_path, "ww", reputation_scope="shared", market={"attacks": ww})
    names = [json.loads(r["identities"] or "{}").get("P4", "P4") for r in found["rows"]]
    assert names[0] == "P4" and len(set(names)) > 1  # it re-entered
    for r, name in zip(found["rows"], names, strict=True):
        for c in found["calls"][r["ord"]]:
            if c.role == "shortlist":  # the user agent sees the current name, no older one
                offered = {v["platform_id"] for v in c.input["candidates"]}
                assert not offered & (set(names) - {name})
        if r["rep_platform"] and r["purchased_platform"] == "P4":
            assert r["rep_platform"] == name  # the record goes to the name it bought from


@pytest.mark.parametrize(
    "behaviour",
    [
        {"attack": "whitewash", "params": {"window": 6, "below": 0.34, "absent_rounds": 3}},
        {"attack": "forge", "params": {"share": 0.5}},
    ],
)
def test_a_resumed_attack_cell_stores_what_the_uninterrupted_one_did(
    tmp_path: Path, behaviour: dict[str, Any]
) -> None:
    settings = {"reputation_scope": "shared", "market": {"attacks": {"P4": behaviour}}}
    whole = cell(tmp_path, "whole", **settings)
    assert resumed_rows(tmp_path, settings) == whole["rows"]


def resumed_rows(tmp_path: Path, settings: dict[str, Any]) -> list[dict[str, Any]]:
    """The rows of a small cell killed after 20 episodes and run again."""
    out = tmp_path / "cut"
    data = {**BASE, **settings}
    run(RunConfig.model_validate(data), out).store.close()
    with sqlite3.connect(out / "run.sqlite") as db:  # killed after 20 episodes
        db.execute("DELETE FROM episodes WHERE ord >= 20")
        db.execute("DELETE FROM calls WHERE ord >= 20")
    run(RunConfig.model_validate(data), out).store.close()
    with RunStore.read(out) as store:
        return sorted(store.episodes(), key=lambda r: r["ord"])


def test_show_names_an_identity_change_and_a_forged_record(tmp_path: Path) -> None:
    ww = {"attack": "whitewash", "params": {"window": 6, "below": 0.34}}
    forge = {"attack": "forge", "params": {"share": 0.5}}
    settings = {"reputation_scope": "shared", "market": {"attacks": {"P4": ww, "P1": forge}}}
    found = cell(tmp_path, "both", **settings)
    renamed = next(r for r in found["rows"] if r["identities"])
    forged = next(r for r in found["rows"] if r["written"])
    for row, said in ((renamed, "P4 appears as P4-"), (forged, "a fake user wrote a high")):
        where = f"{row['domain']}:{row['ord']}"
        shown = CliRunner().invoke(app, ["show", str(tmp_path / "both"), "--episode", where])
        assert shown.exit_code == 0 and said in shown.stdout, shown.output


def test_an_injecting_seat_appends_its_payload_and_sways_only_a_susceptible_reader(
    tmp_path: Path,
) -> None:
    inject = {"P4": {"attack": "inject", "params": {"family": "strong"}}}
    found = cell(tmp_path, "inject", reputation_scope="shared", market={"attacks": inject})
    sentence = PAYLOAD_FAMILIES.get("strong").sentence
    explained = [c for r in found["rows"] for c in found["calls"][r["ord"]] if c.role == "explain"]
    by_seat = {c.input["platform_id"]: c for c in explained}
    assert by_seat["P4"].input["policy"] == "inject-strong"
    assert by_seat["P4"].output["text"].endswith(sentence)
    assert not any(
        sentence in c.output["text"] for c in explained if c.input["platform_id"] != "P4"
    )
    reader = RankerParams()
    assert reader.injection_susceptibility == 0.0  # by default the reader ignores it
    swayed = RankerParams(injection_susceptibility=0.5)
    assert lexicon.push(by_seat["P4"].output["text"]) == 1.0
    assert swayed.injection_susceptibility * lexicon.push(sentence) == 0.5


def test_a_market_makes_every_new_name_wait_before_it_proposes(tmp_path: Path) -> None:
    ww = {"P4": {"attack": "whitewash", "params": {"window": 6, "below": 0.34}}}
    market = {"attacks": ww, "newcomer_wait": 5}
    found = cell(tmp_path, "wait", reputation_scope="shared", market=market)
    names = [json.loads(r["identities"] or "{}").get("P4", "P4") for r in found["rows"]]
    renamed = [i for i in range(1, len(names)) if names[i] != names[i - 1]]
    assert renamed  # it re-entered at least once
    for first in renamed:
        for row in found["rows"][first : first + 5]:
            seats = {
                c.input["platform_id"] for c in found["calls"][row["ord"]] if c.role == "explain"
            }
            assert not seats & set(names), row["ord"]  # the seat sits out, under any name
