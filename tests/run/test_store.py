"""The run store: manifest, conflicts, episode and call rows."""

import sqlite3
from pathlib import Path

import pytest

from recmarket.config import EpisodeConfig, RunConfig
from recmarket.run import records
from recmarket.run.records import CALLS_KEPT
from recmarket.run.replay import all_calls, calls_of
from recmarket.run.runner import run
from recmarket.run.store import SCHEMA_VERSION, RunConflict, RunStore

CFG = RunConfig(domains=("Musical_Instruments",), episodes=EpisodeConfig(requests=24))


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("run")
    run(CFG, out).store.close()
    return out


def test_manifest_records_the_full_config(finished: Path) -> None:
    store = RunStore.read(finished)
    manifest = store.manifest()
    assert store.config() == CFG
    assert manifest["config_hash"] == CFG.digest()
    assert manifest["seed"] == "42" and manifest["version"]
    assert "git_commit" in manifest
    assert store.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_every_episode_is_stored_and_every_role_call_can_be_read(finished: Path) -> None:
    """An offline run stores the calls of its first CALLS_KEPT episodes a domain; the
    others are played again from its settings (run/replay.py)."""
    store = RunStore.read(finished)
    rows = store.episodes()
    assert [r["ord"] for r in rows] == list(range(24))
    assert store.kept_calls(rows[0]["domain"]) == set(range(CALLS_KEPT))
    every = calls_of(store, rows[0]["domain"], [r["ord"] for r in rows])
    for row in rows:
        calls = every[row["ord"]]
        roles = [c.role for c in calls]
        assert roles[:2] == ["query", "need"] and roles.count("explain") == 6
        assert ("update" in roles) == (row["rep_label"] is not None) == row["any_purchase"]
        assert calls[0].input["target"]["title"]  # the typed input, whole


def test_a_different_config_is_refused_with_the_differences(finished: Path) -> None:
    changed = CFG.model_copy(update={"seed": 7})
    with pytest.raises(RunConflict, match=r"seed: 42 -> 7.*same settings to resume"):
        RunStore.open(finished, changed)


def test_rerunning_a_finished_run_changes_nothing(finished: Path) -> None:
    before = RunStore.read(finished).episodes()
    run(CFG, finished).store.close()
    assert RunStore.read(finished).episodes() == before


LATER = {
    "2": (
        "top1_platform",
        "regret",
        "strategy",
        "purchased_platform",
        "shown_platforms",
        "identities",
        "written",
    ),
    "3": ("purchased_platform", "shown_platforms", "identities", "written"),
}


@pytest.mark.parametrize("schema", list(LATER))
def test_an_older_store_gains_the_new_columns_and_resumes(tmp_path: Path, schema: str) -> None:
    """A run stored before issue 12 (schema 2: no top1_platform, regret, strategy) or issue
    31 (schema 3: no purchased_platform, shown_platforms, identities, written) resumes in
    place: its episodes keep their values and the new ones fill the new columns."""
    out = tmp_path / "old"
    run(CFG, out).store.close()
    full = RunStore.read(out).episodes()
    with sqlite3.connect(out / "run.sqlite") as db:
        db.execute("DELETE FROM episodes WHERE ord >= 12")
        db.execute("DELETE FROM calls WHERE ord >= 12")
        for column in LATER[schema]:
            db.execute(f"ALTER TABLE episodes DROP COLUMN {column}")
        db.execute("UPDATE manifest SET value = ? WHERE key = 'schema'", (schema,))
    run(CFG, out).store.close()
    store = RunStore.read(out)
    rows = store.episodes()
    assert store.manifest()["schema"] == str(SCHEMA_VERSION)
    assert [r["regret"] is None for r in rows] == [schema == "2"] * 12 + [False] * 12
    bought = [r["purchased_platform"] is not None for r in full[:12]]
    assert [r["purchased_platform"] is not None for r in rows[:12]] == [False] * 12
    assert any(bought)  # the new column would have held something for them
    assert rows[12:] == full[12:]
    old_columns = [k for k in full[0] if k not in LATER[schema]]
    assert [{k: r[k] for k in old_columns} for r in rows] == [
        {k: r[k] for k in old_columns} for r in full
    ]


def test_a_schema_4_store_keeps_its_calls_and_resumes(tmp_path: Path) -> None:
    """A store of schema 4 kept every episode's calls. Its records are those this engine
    plays, so it resumes in place: its episodes keep their stored calls, the new ones keep
    the first CALLS_KEPT's only, and every episode's calls read the same either way."""
    everything = tmp_path / "all"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(records, "CALLS_KEPT", 10**9)  # as schema 4 stored them
        run(CFG, everything).store.close()
    with RunStore.read(everything) as store:
        made = {(d, o): c for d, o, c in store.all_calls()}
        assert len({o for _, o in made}) == 24
    with sqlite3.connect(everything / "run.sqlite") as db:
        db.execute("DELETE FROM episodes WHERE ord >= 12")
        db.execute("DELETE FROM calls WHERE ord >= 12")
        db.execute("UPDATE manifest SET value = '4' WHERE key = 'schema'")
    run(CFG, everything).store.close()
    with RunStore.read(everything) as store:
        assert store.manifest()["schema"] == str(SCHEMA_VERSION)
        domain = store.episodes()[0]["domain"]
        assert store.kept_calls(domain) == set(range(12))
        again = {(d, o): c for d, o, c in all_calls(store)}
    assert again == made


def test_a_store_of_an_unknown_schema_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "old"
    run(CFG.model_copy(update={"episodes": EpisodeConfig(requests=12)}), out).store.close()
    with sqlite3.connect(out / "run.sqlite") as db:
        db.execute("UPDATE manifest SET value = '1' WHERE key = 'schema'")
    with pytest.raises(RunConflict, match="schema 1 made by an older recmarket"):
        RunStore.open(out, CFG.model_copy(update={"episodes": EpisodeConfig(requests=12)}))
