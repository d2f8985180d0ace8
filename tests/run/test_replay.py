"""An offline run keeps the calls of its first episodes only; every other episode's calls are
played again from its settings, equal to those the run made, and a store whose episodes the
code no longer plays the same way is named rather than answered."""

import json
import sqlite3
import zlib
from pathlib import Path

import pytest

from recmarket.config import RunConfig
from recmarket.run import records
from recmarket.run.replay import ReplayMismatch, all_calls, calls_of
from recmarket.run.runner import run
from recmarket.run.store import RunStore

BASE = {"domains": ["Video_Games"], "episodes": {"requests": 24, "users_per_profile": 1}}
CELLS = {
    "local-rep": {"condition": "local-rep"},
    "shared": {"condition": "local-rep", "reputation_scope": "shared"},
    "adaptive": {"condition": "local-rep", "market": {"platform_strategy": "adaptive"}},
    "platform-centric": {"condition": "platform-centric"},
}


@pytest.mark.parametrize("name", list(CELLS))
def test_replayed_calls_equal_the_calls_the_run_made(tmp_path: Path, name: str) -> None:
    cfg = RunConfig.model_validate({**BASE, **CELLS[name]})
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(records, "CALLS_KEPT", 10**9)  # keep every call: the reference
        run(cfg, tmp_path / "all").store.close()
    run(cfg, tmp_path / "kept").store.close()
    with RunStore.read(tmp_path / "all") as made, RunStore.read(tmp_path / "kept") as kept:
        assert kept.episodes() == made.episodes()
        assert kept.kept_calls("Video_Games") == set(range(records.CALLS_KEPT))
        assert list(all_calls(kept)) == list(made.all_calls())
        late = calls_of(kept, "Video_Games", [20])  # a prefix of the schedule plays it
        assert late[20] == list(made.calls("Video_Games", 20))
    bytes_all = (tmp_path / "all" / "run.sqlite").stat().st_size
    assert (tmp_path / "kept" / "run.sqlite").stat().st_size < bytes_all


def test_an_episode_the_code_now_plays_differently_is_named(tmp_path: Path) -> None:
    cfg = RunConfig.model_validate({**BASE, **CELLS["local-rep"]})
    run(cfg, tmp_path / "run").store.close()
    with sqlite3.connect(tmp_path / "run" / "run.sqlite") as db:  # as another engine left it
        db.execute("UPDATE episodes SET regret = regret + 1 WHERE ord = 9")
    with RunStore.read(tmp_path / "run") as store:
        assert len(calls_of(store, "Video_Games", [2])[2]) > 5  # kept: read as stored
        with pytest.raises(ReplayMismatch, match=r"episode Video_Games:9 plays differently"):
            calls_of(store, "Video_Games", [9])


def test_a_change_of_wording_alone_is_named_by_the_kept_calls(tmp_path: Path) -> None:
    """Code that words a call differently may leave every episode row as it was; the calls
    the run kept show the difference, so no replayed call is passed off as the run's."""
    cfg = RunConfig.model_validate({**BASE, **CELLS["local-rep"]})
    run(cfg, tmp_path / "run").store.close()
    with RunStore.read(tmp_path / "run") as store:
        first = list(store.calls("Video_Games", 0))
    reworded = [[c.role, c.input, c.output] for c in first]
    reworded[0][2] = {**reworded[0][2], "query_text": "worded by another version"}
    body = zlib.compress(json.dumps(reworded).encode())
    with sqlite3.connect(tmp_path / "run" / "run.sqlite") as db:
        db.execute("UPDATE calls SET body = ? WHERE ord = 0", (body,))
    said = r"episode Video_Games:0 plays differently"
    with RunStore.read(tmp_path / "run") as store, pytest.raises(ReplayMismatch, match=said):
        calls_of(store, "Video_Games", [9])
