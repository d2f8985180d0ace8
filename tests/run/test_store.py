"""The run store: manifest, conflicts, episode and call rows."""

from pathlib import Path

import pytest

from recmarket.config import EpisodeConfig, RunConfig
from recmarket.run.runner import run
from recmarket.run.store import RunConflict, RunStore

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


def test_every_episode_and_every_role_call_is_stored(finished: Path) -> None:
    store = RunStore.read(finished)
    rows = store.episodes()
    assert [r["ord"] for r in rows] == list(range(24))
    for row in rows:
        calls = list(store.calls(row["domain"], row["ord"]))
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
