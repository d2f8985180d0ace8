"""Records written by someone other than the episode's user: the oracle's referee, who knows
the held-out target (forged records are tested with the forge behaviour)."""

import json
import sqlite3
from pathlib import Path

from recmarket.agents.rules import lexicon
from recmarket.agents.rules.agent import credibility
from recmarket.agents.rules.params import RankerParams
from recmarket.catalogue.mechanisms import ReputationSetting
from recmarket.config import RunConfig
from recmarket.market.outcome import Outcome, Proposal
from recmarket.market.reputation import ReputationMemory
from recmarket.market.written import ORACLE_FAIR, ORACLE_LOW, ORACLE_UNDER, oracle
from recmarket.run.replay import all_calls
from recmarket.run.runner import run
from recmarket.run.store import RunStore
from tests.fixtures import user_request

TARGET = 7


def shown(*items: int) -> Outcome:
    o = Outcome(user_request(0), "local-rep", TARGET)
    o.shown = [Proposal(f"P{i + 1}", "strict", item, False, "") for i, item in enumerate(items)]
    return o


def labels(o: Outcome) -> dict[str, str]:
    return {name: label for name, label, _, source in o.written if source == "oracle"}


def test_the_oracle_lows_every_platform_above_the_target_and_highs_every_one_showing_it() -> None:
    memory = ReputationMemory(10, "local", ReputationSetting(mechanism="oracle"))
    o = shown(3, 4, TARGET, 5, TARGET)
    oracle(o, memory)
    assert labels(o) == {"P1": "low", "P2": "low", "P3": "high", "P5": "high"}  # P4: below
    records = memory.histories(o.request, ("P1", "P3", "P4"))
    assert [r.claim_reliability for r in records["P1"]] == ["low"] and not records["P4"]
    missing = shown(3, 4, 5)
    oracle(missing, memory)
    assert missing.written == []  # who displaced an unshown target is not known


def test_the_oracles_records_say_which_way_each_proposal_erred() -> None:
    """Above the target: over; the target first: fair; the target below another: under;
    read by the user agent as it reads a user's record."""
    memory = ReputationMemory(10, "local", ReputationSetting(mechanism="oracle"))
    o = shown(3, TARGET, TARGET)
    oracle(o, memory)
    ways = {name: lexicon.read_direction(note) for name, _, note, _ in o.written}
    assert ways == {"P1": "over", "P2": "under", "P3": "under"}
    first = shown(TARGET, 4)
    oracle(first, memory)
    assert [(n, lexicon.read_direction(note)) for n, _, note, _ in first.written] == [
        ("P1", "fair")
    ]


def test_an_oracle_low_never_raises_belief_in_a_hedged_claim() -> None:
    """The oracle once raised belief in Strict's cautious claims with every record, Low
    included (0.5 to 0.8): a Low says the platform's presentation was not to be trusted, in
    either direction; a High whose note says the wanted item was undersold believes no hedge
    either; only a fair High raises it (where High is a bonus at all: before issue 63; at the
    defaults now it holds the prior)."""
    p = RankerParams(label_credibility={"high": 1.0, "mixed": 0.25, "low": 0.0})
    for n in (1, 3, 10):
        for record, moves in ((ORACLE_LOW, -1), (ORACLE_UNDER, -1), (ORACLE_FAIR, 1)):
            belief = credibility((record,) * n, False, p)
            assert (belief - p.credence) * moves > 0, (record.note, n, belief)


def test_an_oracle_cell_asks_for_no_review_and_resumes_to_the_same_records(
    tmp_path: Path,
) -> None:
    data = {
        "domains": ["Video_Games"],
        "condition": "local-rep",
        "reputation_scope": "shared",
        "episodes": {"requests": 36, "users_per_profile": 1},
        "market": {"reputation": {"mechanism": "oracle"}},
    }
    cfg = RunConfig.model_validate(data)
    run(cfg, tmp_path / "whole").store.close()
    with RunStore.read(tmp_path / "whole") as store:
        whole = sorted(store.episodes(), key=lambda r: r["ord"])
        roles = {c.role for _, _, c in all_calls(store)}
    assert not roles & {"review", "update"} and all(r["rep_label"] is None for r in whole)
    written = [w for r in whole for w in json.loads(r["written"] or "[]")]
    assert written and {w[3] for w in written} == {"oracle"}
    run(cfg, tmp_path / "cut").store.close()
    with sqlite3.connect(tmp_path / "cut" / "run.sqlite") as db:
        db.execute("DELETE FROM episodes WHERE ord >= 18")
        db.execute("DELETE FROM calls WHERE ord >= 18")
    run(cfg, tmp_path / "cut").store.close()
    with RunStore.read(tmp_path / "cut") as store:
        assert sorted(store.episodes(), key=lambda r: r["ord"]) == whole
