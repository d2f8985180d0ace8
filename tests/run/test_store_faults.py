"""Stores that are read-only, damaged or empty: one line naming the file, nothing written
where it should not be, nothing locked that holds no episode."""

import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from recmarket.cli import app
from recmarket.config import EpisodeConfig, RunConfig
from recmarket.run.runner import run
from recmarket.run.store import RunStore, StoreError


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("finished") / "run"
    cfg = RunConfig(
        condition="no-rep", domains=("Video_Games",), episodes=EpisodeConfig(requests=6)
    )
    run(cfg, out).store.close()
    return out


def copy(finished: Path, to: Path) -> Path:
    shutil.copytree(finished, to)
    return to


def test_a_store_with_no_episode_takes_new_settings(tmp_path: Path) -> None:
    first = RunConfig(condition="no-rep", seed=1)
    RunStore.open(tmp_path, first).close()
    second = RunConfig(condition="no-rep", seed=2)
    store = RunStore.open(tmp_path, second)
    assert store.manifest()["config_hash"] == second.digest()
    store.close()


def test_a_store_with_episodes_but_no_manifest_is_never_written(
    finished: Path, tmp_path: Path
) -> None:
    damaged = copy(finished, tmp_path / "damaged")
    with sqlite3.connect(damaged / "run.sqlite") as db:
        db.execute("DELETE FROM manifest")
    with pytest.raises(StoreError, match="no manifest"):
        RunStore.open(damaged, RunConfig(condition="no-rep", seed=9))
    with sqlite3.connect(damaged / "run.sqlite") as db:
        assert db.execute("SELECT COUNT(*) FROM manifest").fetchone()[0] == 0
    shown = CliRunner().invoke(app, ["show", str(damaged)])
    assert shown.exit_code == 2 and "no manifest" in shown.output


def test_corrupt_calls_are_named_with_their_episode(finished: Path, tmp_path: Path) -> None:
    damaged = copy(finished, tmp_path / "damaged")
    with sqlite3.connect(damaged / "run.sqlite") as db:
        db.execute("UPDATE calls SET body = ? WHERE ord = 0", (b"not zlib",))
    shown = CliRunner().invoke(app, ["show", str(damaged), "--episode", "Video_Games:0"])
    assert shown.exit_code == 2 and "Traceback" not in shown.output
    said = " ".join(shown.output.split())
    assert "run.sqlite" in said and "Video_Games:0 are corrupt" in said


def test_a_file_that_is_not_a_store_is_named(tmp_path: Path) -> None:
    (tmp_path / "run.sqlite").write_bytes(b"this is not sqlite" * 100)
    shown = CliRunner().invoke(app, ["show", str(tmp_path)])
    assert shown.exit_code == 2 and "corrupt" in shown.output


def test_finished_runs_are_read_on_a_read_only_mount(finished: Path, tmp_path: Path) -> None:
    target = tmp_path / "ro"
    target.mkdir()
    if subprocess.run(
        ["mount", "-t", "tmpfs", "tmpfs", str(target)], capture_output=True
    ).returncode:
        pytest.skip("cannot mount a tmpfs here (needs root)")
    try:
        shutil.copy(finished / "run.sqlite", target / "run.sqlite")
        subprocess.run(["mount", "-o", "remount,ro", str(target)], check=True)
        shown = CliRunner().invoke(app, ["show", str(target)])
        assert shown.exit_code == 0, shown.output
        exported = CliRunner().invoke(
            app, ["export", str(target), "--format", "csv", "--out", str(tmp_path / "e.csv")]
        )
        assert exported.exit_code == 0, exported.output
        assert sorted(p.name for p in target.iterdir()) == ["run.sqlite"]  # nothing written
    finally:  # lazily, should anything still hold the mount
        subprocess.run(["umount", "-l", str(target)], check=False)
