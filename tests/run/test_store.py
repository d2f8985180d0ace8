"""The run store: manifest, conflicts, episode and call rows."""

import errno
import os
import shutil
import sqlite3
from pathlib import Path

import pytest

from recmarket import config as config_module
from recmarket.config import EpisodeConfig, RunConfig
from recmarket.data import BUNDLED_DATA_DIR
from recmarket.run import store as store_module
from recmarket.run.manifest import SCHEMA_VERSION, RunConflict
from recmarket.run.records import CALLS_KEPT
from recmarket.run.replay import ReplayMismatch, calls_of
from recmarket.run.runner import run
from recmarket.run.store import RunStore
from recmarket.run.stored_rows import ADDED_IN_SCHEMA, check_rows
from recmarket.sqlite_files import StoreError

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


def test_episodes_read_in_chunks_are_the_rows_read_at_once(finished: Path) -> None:
    """The report reads a store's rows a chunk at a time (never every row as a dict)."""
    store = RunStore.read(finished)
    chunked = store.iter_episodes(chunk=5)
    assert next(chunked) == store.episodes()[0]  # the first row, before the rest are read
    assert [store.episodes()[0], *chunked] == store.episodes()
    domain = store.episodes()[0]["domain"]
    assert list(store.iter_episodes(domain, chunk=7)) == store.episodes(domain)
    assert list(store.iter_episodes("Elsewhere")) == []


def test_a_different_config_is_refused_with_the_differences(finished: Path) -> None:
    changed = CFG.model_copy(update={"seed": 7})
    with pytest.raises(RunConflict, match=r"seed: 42 -> 7.*same settings to resume"):
        RunStore.open(finished, changed)


def test_rerunning_a_finished_run_changes_nothing(finished: Path) -> None:
    before = RunStore.read(finished).episodes()
    run(CFG, finished).store.close()
    assert RunStore.read(finished).episodes() == before


@pytest.mark.parametrize("schema", ["2", "5", "8"])
def test_a_store_of_an_earlier_engine_is_read_but_not_resumed(tmp_path: Path, schema) -> None:
    """A store of an earlier schema holds episodes of an engine that drew or read them
    otherwise (2-5: before schema 6; 8: before the buyer's request, High at the prior and
    the Rep instruction of schema 9, whose settings mostly hash as before): it stays
    readable (rows, kept calls), and resuming it or playing its episodes again is refused
    with one line naming both versions and how to finish it."""
    out = tmp_path / "old"
    run(CFG, out).store.close()
    with sqlite3.connect(out / "run.sqlite") as db:
        db.execute("DELETE FROM episodes WHERE ord >= 12")
        db.execute("DELETE FROM calls WHERE ord >= 12")
        if schema == "2":  # no regret, purchased_platform, ... columns
            for column in ("regret", "purchased_platform", "shown_platforms", "written"):
                db.execute(f"ALTER TABLE episodes DROP COLUMN {column}")
        if schema == "8":  # no target_fit_rank, target_fit_gap, target_top1_grid columns
            for column in ADDED_IN_SCHEMA[9]:
                db.execute(f"ALTER TABLE episodes DROP COLUMN {column}")
        db.execute("UPDATE manifest SET value = ? WHERE key = 'schema'", (schema,))
        db.execute("UPDATE manifest SET value = '0.9.0' WHERE key = 'version'")
        db.execute("UPDATE manifest SET value = '1879300abc' WHERE key = 'git_commit'")
    with pytest.warns(store_module.EarlierEngine, match=f"store schema {schema}"):
        before = RunStore.read(out).episodes()
    assert len(before) == 12 and ("regret" in before[0]) == (schema != "2")
    assert "target_fit_gap" not in before[0] or schema != "8"
    with pytest.raises(RunConflict) as refused:
        run(CFG, out)
    message = str(refused.value)
    assert "\n" not in message
    assert f"store schema {schema} made by recmarket 0.9.0 at 1879300abc" in message
    assert f"(schema {SCHEMA_VERSION})" in message
    assert "pip install 'recmarket==0.9.0' or a checkout of 1879300abc" in message
    with pytest.warns(store_module.EarlierEngine), RunStore.read(out) as store:
        assert store.episodes() == before  # nothing written
        domain = before[0]["domain"]
        assert list(store.calls(domain, 0))  # a kept episode's calls read as stored
        with pytest.raises(ReplayMismatch, match="to read the role calls it did not keep"):
            calls_of(store, domain, [5])


def test_a_store_of_an_unknown_schema_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "old"
    run(CFG.model_copy(update={"episodes": EpisodeConfig(requests=12)}), out).store.close()
    with sqlite3.connect(out / "run.sqlite") as db:
        db.execute("UPDATE manifest SET value = '1' WHERE key = 'schema'")
    with pytest.raises(RunConflict, match="store schema 1 made by recmarket"):
        RunStore.open(out, CFG.model_copy(update={"episodes": EpisodeConfig(requests=12)}))


@pytest.fixture
def read_only_mount(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every directory behaves as a read-only mount does for the writer lock: its file
    cannot be made."""

    def unwritable(directory: Path) -> None:
        path = directory / ".recmarket.lock"
        raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(path))

    monkeypatch.setattr(store_module, "WriterLock", unwritable)


def tree(directory: Path) -> dict[str, bytes]:
    return {str(p.relative_to(directory)): p.read_bytes() for p in directory.rglob("*")}


def test_a_finished_run_in_a_read_only_directory_reruns_writing_nothing(
    finished: Path, tmp_path: Path, read_only_mount: None
) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(finished, copy)
    before = tree(copy)
    result = run(CFG, copy)
    assert result.store.lock is None and len(result.store.episodes()) == 24
    result.store.close()
    assert tree(copy) == before
    with pytest.raises(RunConflict, match="different configuration"):
        run(CFG.model_copy(update={"seed": 7}), copy)


def test_an_unfinished_or_missing_run_in_a_read_only_directory_is_refused_naming_it(
    finished: Path, tmp_path: Path, read_only_mount: None
) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(finished, copy)
    with sqlite3.connect(copy / "run.sqlite") as db:
        db.execute("DELETE FROM episodes WHERE ord >= 20")
    with pytest.raises(StoreError, match=r"Read-only file system.*\.recmarket\.lock.*20 of 24"):
        run(CFG, copy)
    with pytest.raises(OSError, match=r"Read-only file system: '.*empty/\.recmarket\.lock'"):
        run(CFG, tmp_path / "empty")


def test_a_run_on_ones_own_files_is_not_resumed_by_another_review_reader(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its episodes are what the reader kept of the files: a reader that keeps other
    reviews is another run, refused in one line; the bundled domains' runs, whose reading
    the golden records pin, keep their hash."""
    own = RunConfig(data=BUNDLED_DATA_DIR, domains=("Video_Games",), episodes={"requests": 6})
    run(own, tmp_path / "run").store.close()  # the bundled files, read as one's own
    bundled = CFG.digest()
    monkeypatch.setattr(config_module, "READER_VERSION", config_module.READER_VERSION + 1)
    assert CFG.digest() == bundled
    with pytest.raises(RunConflict, match="another version of recmarket's review reader"):
        RunStore.open(tmp_path / "run", own)


def test_a_run_on_ones_own_files_is_not_resumed_over_other_bytes(tmp_path: Path) -> None:
    """The run's identity holds the content of the files it reads, not their path: a meta
    file edited between a kill and a resume is refused naming it, whatever its path; a file
    touched or copied with the same bytes resumes (the stamp is the fast check only)."""
    data = tmp_path / "data"
    shutil.copytree(BUNDLED_DATA_DIR, data)
    own = RunConfig(data=data, domains=("Video_Games",), episodes={"requests": 6})
    run(own, tmp_path / "run").store.close()
    meta = next(data.glob("meta_Video_Games.*"))
    os.utime(meta, ns=(1, 1))  # another stamp, the same bytes: the same data
    RunStore.open(tmp_path / "run", own).close()
    reviews = next(data.glob("Video_Games.*"))
    kept = reviews.read_bytes()
    reviews.write_bytes(kept[:-1] + bytes([kept[-1] ^ 1]))
    with pytest.raises(RunConflict, match=rf"{reviews.name} changed \(sha256 \w{{12}} -> "):
        RunStore.open(tmp_path / "run", own)
    reviews.write_bytes(kept)  # the bytes restored: the run resumes
    RunStore.open(tmp_path / "run", own).close()


def test_a_store_whose_lessons_column_had_its_older_name_is_read_and_resumed(
    tmp_path: Path,
) -> None:
    """Stores of this schema made before the adaptive seats' column was named ``lessons``
    hold it as ``strategy``: they are read by the new name, and renamed in place (every
    value kept) when opened to go on."""
    cfg = RunConfig.model_validate(
        {
            "domains": ["Video_Games"],
            "episodes": {"requests": 24},
            "market": {"platform_strategy": "adaptive", "learning_period": 6},
        }
    )
    out = tmp_path / "run"
    run(cfg, out).store.close()
    with RunStore.read(out) as store:
        before = store.episodes()
    assert all(row["lessons"] for row in before)
    with sqlite3.connect(out / "run.sqlite") as db:
        db.execute("ALTER TABLE episodes RENAME COLUMN lessons TO strategy")
        db.execute("DELETE FROM episodes WHERE ord >= 18")  # as if killed in round 19
    with RunStore.read(out) as store:
        assert store.episodes() == [r for r in before if r["ord"] < 18]
    run(cfg, out).store.close()  # resumes: the lessons of rounds 1-18 are read back
    with sqlite3.connect(out / "run.sqlite") as db:
        held = {row[1] for row in db.execute("PRAGMA table_info(episodes)")}
    assert "lessons" in held and "strategy" not in held
    with RunStore.read(out) as store:
        assert store.episodes() == before


@pytest.mark.parametrize(
    ("edit", "said"),
    [
        (  # a hand-set flag: a target bought that nobody bought
            "UPDATE episodes SET target_purchased = 1 WHERE ord = 3 AND any_purchase = 0",
            "episode Musical_Instruments:3: target_purchased without",
        ),
        ("UPDATE episodes SET target_top1 = 2 WHERE ord = 4", "target_top1 is not 0 or 1"),
        ("UPDATE episodes SET top1_platform = 'P9' WHERE ord = 5", "top1_platform is not a seat"),
        ("UPDATE episodes SET rep_label = 'great' WHERE ord = 6", "rep_label is not high"),
        ("UPDATE episodes SET regret = 9e999 WHERE ord = 7", "regret is not a finite number"),
        ("ALTER TABLE episodes DROP COLUMN written", "the episodes table lacks written"),
    ],
)
def test_a_store_whose_rows_cannot_be_trusted_is_refused_naming_row_and_column(
    finished: Path, tmp_path: Path, edit: str, said: str
) -> None:
    edited = tmp_path / "edited"
    shutil.copytree(finished, edited)
    with sqlite3.connect(edited / "run.sqlite") as db:
        if "any_purchase = 0" in edit:  # make sure the row it edits exists
            db.execute(
                "UPDATE episodes SET any_purchase = 0, purchased_platform = NULL, "
                "off_target_purchase = 0, target_purchased = 0 WHERE ord = 3"
            )
        db.execute(edit)
    with pytest.raises(StoreError, match=r"(the store|it) is not read") as refused:
        RunStore.read(edited)
    assert said in str(refused.value) and "\n" not in str(refused.value)
    with pytest.raises(StoreError, match=said.split(":")[-1].strip()):
        run(CFG, edited)  # nor resumed


def test_a_store_of_a_later_schema_is_refused_and_an_earlier_one_said(
    finished: Path, tmp_path: Path
) -> None:
    for schema in ("99", "x"):
        later = tmp_path / f"later-{schema}"
        shutil.copytree(finished, later)
        with sqlite3.connect(later / "run.sqlite") as db:
            db.execute("UPDATE manifest SET value = ? WHERE key = 'schema'", (schema,))
        with pytest.raises(StoreError, match=f"store schema {schema}; this one reads up to"):
            RunStore.read(later)
    earlier = tmp_path / "earlier"
    shutil.copytree(finished, earlier)
    with sqlite3.connect(earlier / "run.sqlite") as db:
        db.execute("UPDATE manifest SET value = '5' WHERE key = 'schema'")
    with pytest.warns(store_module.EarlierEngine, match="made by an earlier engine"):
        RunStore.read(earlier).close()


def test_without_its_settings_a_stores_seats_are_checked_by_their_form(
    finished: Path, tmp_path: Path
) -> None:
    """A process that lacks a plugin the settings name still checks the rows: a seat is
    then any P<number>, and a re-entry's name P<number>-<n>."""
    edited = tmp_path / "edited"
    shutil.copytree(finished, edited)
    with sqlite3.connect(edited / "run.sqlite") as db:
        db.execute("UPDATE episodes SET rep_platform = 'P12-3' WHERE ord = 1")
        check_rows(db, edited, None, SCHEMA_VERSION, {})  # a form a seat may have
        db.execute("UPDATE episodes SET top1_platform = 'Q1' WHERE ord = 2")
        with pytest.raises(StoreError, match="episode Musical_Instruments:2: top1_platform"):
            check_rows(db, edited, None, SCHEMA_VERSION, {})
