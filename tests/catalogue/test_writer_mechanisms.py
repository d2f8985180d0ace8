"""The classical defences that weigh records by their writers: each acts through its
documented rule on records whose writers are known, is switched off by its own parameter
(its cell's records then equal the window's), and a resumed cell under one rebuilds the
writers' track records as the uninterrupted cell had them. No test says which defence pays."""

import json
import re
from pathlib import Path
from typing import Any

import pytest

from recmarket.catalogue.mechanisms import MECHANISMS, RecordFacts
from recmarket.catalogue.writer_mechanisms import FLOOR
from recmarket.catalogue.writers import WriterLedger
from tests.catalogue.test_attacks import cell, decided, resumed_rows


def facts(*records: tuple[str, str]) -> list[RecordFacts]:
    """(author, label) records about P1, oldest first, written a round apart."""
    return [RecordFacts(i, "user", "P1", a, label) for i, (a, label) in enumerate(records)]


def ledger(records: list[RecordFacts]) -> WriterLedger:
    found = WriterLedger()
    for r in records:
        if r.writer != "penalty":  # shown, never written: a memory keeps no track of it
            found.add(r.about, r.author, r.label, r.writer == "user")
    return found


def weights(name: str, records: list[RecordFacts], **params: Any) -> tuple[float, ...] | None:
    made = MECHANISMS.get(name)
    return made.weigh_with(records, 99, made.Params(**params), ledger(records))


def test_the_filter_drops_a_writer_whose_many_records_contradict_a_wide_consensus() -> None:
    """Ten users say High twice each; one writer says Low six times: its Beta puts the
    consensus outside its 1% and 99% quantiles, theirs do not."""
    consensus = [(f"u{i}", "high") for i in range(10) for _ in range(2)]
    records = facts(*consensus, *[("liar", "low")] * 6)
    found = weights("brs-filter", records)
    assert found is not None
    assert [w for r, w in zip(records, found, strict=True) if r.author == "liar"] == [FLOOR] * 6
    assert all(w == 1.0 for r, w in zip(records, found, strict=True) if r.author != "liar")
    # one contradicting record is not evidence enough against a writer among few others
    few = facts(("a", "high"), ("b", "high"), ("c", "high"), ("lone", "low"))
    assert set(weights("brs-filter", few)) == {1.0}
    assert weights("brs-filter", records, q=0.0) is None  # switched off


def test_credibility_follows_a_writers_agreement_with_what_came_after() -> None:
    """A writer whose records later ones confirm weighs more than one never judged (1/2),
    and one they contradict weighs less."""
    records = facts(("bad", "low"), ("good", "high"), ("x", "high"), ("y", "high"), ("new", "high"))
    found = dict(zip([r.author for r in records], weights("credibility", records), strict=True))
    assert found["good"] > found["new"] == 0.5 > found["bad"]
    assert weights("credibility", records, strength=0.0) is None


def test_the_limiter_caps_a_new_writer_and_lets_confirmed_ones_grow() -> None:
    confirmed = [(w, "high") for w in ("old", *(f"c{i}" for i in range(12)))]
    records = facts(*confirmed, ("new", "low"))
    found = dict(
        zip([r.author for r in records], weights("influence-limiter", records), strict=True)
    )
    assert found["new"] == pytest.approx(0.1)  # its starting reputation
    assert found["old"] == 1.0  # ten and more net confirmations: a full writer
    low = weights("influence-limiter", records, initial=0.5)
    assert low is not None and low[-1] == pytest.approx(0.5)


def test_trust_flows_from_the_first_writers_to_those_who_agree_with_them() -> None:
    """The first three users are trusted in advance; a writer who agrees with them earns
    trust, one who contradicts them, and a fresh account never judged, count for little."""
    records = facts(
        ("f1", "high"),
        ("f2", "high"),
        ("f3", "high"),
        ("ally", "high"),
        ("foe", "low"),
        ("f1", "high"),
        ("fresh", "low"),
    )
    found = dict(zip([r.author for r in records], weights("seeded-trust", records), strict=True))
    assert found["ally"] > found["foe"]
    assert found["fresh"] == FLOOR  # nobody has judged it yet
    assert min(found["f1"], found["f2"], found["f3"]) > found["foe"]
    assert weights("seeded-trust", records, strength=0.0) is None


def test_the_newcomer_penalty_counts_fully_under_every_writer_defence() -> None:
    penalty = [RecordFacts(5, "penalty", "P1")]
    records = penalty + facts(("a", "low"), ("b", "high"))
    for name in ("credibility", "influence-limiter", "seeded-trust", "brs-filter"):
        found = weights(name, records)
        assert found is not None and found[0] == 1.0, name


FORGE = {"P4": {"attack": "flood", "params": {"share": 0.5, "records": 3}}}
OFF = {
    "brs-filter": {"q": 0.0},
    "credibility": {"strength": 0.0},
    "influence-limiter": {"strength": 0.0},
    "seeded-trust": {"strength": 0.0},
}


@pytest.mark.slow  # end to end, five cells a scope
@pytest.mark.parametrize("scope", ["shared", "local"])
def test_a_defence_switched_off_leaves_the_window_cells_records(tmp_path: Path, scope: str) -> None:
    market = {"attacks": FORGE}
    window = decided(cell(tmp_path, "window", reputation_scope=scope, market=market))
    for name, params in OFF.items():
        reputation = {"mechanism": name, "params": params}
        found = cell(
            tmp_path, name, reputation_scope=scope, market={**market, "reputation": reputation}
        )
        assert decided(found) == window, name
    writers = {m.name for m in MECHANISMS if m.reads_writers}
    assert writers == set(OFF)  # every writer defence has an off switch


def test_proof_of_purchase_keeps_forged_records_out_of_every_history(tmp_path: Path) -> None:
    """The flood is still attempted (and stored as written), but no user agent is shown a
    record its fake users wrote; the users' own records stay."""
    market = {"attacks": FORGE, "proof_of_purchase": True}
    found = cell(tmp_path, "proof", reputation_scope="shared", market=market)
    assert any(r["written"] for r in found["rows"])
    shown = [
        record["note"]
        for r in found["rows"]
        for c in found["calls"][r["ord"]]
        if c.input.get("histories")
        for history in c.input["histories"].values()
        for record in history
    ]
    assert shown and not any(n.startswith("Claims matched my use exactly") for n in shown)


def test_a_resumed_cell_under_a_writer_defence_stores_what_the_uninterrupted_one_did(
    tmp_path: Path,
) -> None:
    """The writers' track records (fake accounts included) are rebuilt from the stored
    records, so the weights after the cut are those the uninterrupted cell used."""
    market = {"attacks": FORGE, "reputation": {"mechanism": "seeded-trust"}}
    settings = {"reputation_scope": "shared", "market": market}
    whole = cell(tmp_path, "whole", **settings)
    assert resumed_rows(tmp_path, settings) == whole["rows"]
    weighted = [
        json.dumps(c.input["histories"])
        for r in whole["rows"][20:]
        for c in whole["calls"][r["ord"]]
        if c.input.get("histories")
    ]
    weights = [float(w) for h in weighted for w in re.findall(r'"weight": ([0-9.e-]+)', h)]
    assert weights and min(weights) < 0.5  # the defence did discount some writers
