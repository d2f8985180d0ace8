"""The run store: one SQLite file per run.

It holds a manifest (the full configuration, its hash, the seed, the package version, git
commit and whether the checkout was dirty, the installed packages, and the distribution,
version and source digest of every variant from outside recmarket: ``run.manifest``), one
row per finished episode with its metrics, and per episode every role call with its typed
input and output, in order, as one zlib-compressed JSON array (one compression per episode
is several times faster than one per call, and the calls of an episode repeat each other, so
it is also much smaller). Each episode is written in a single transaction in WAL mode, so a
process killed at any moment leaves either the whole episode or none of it; a restart with
the same configuration resumes after the last whole episode.
"""

from __future__ import annotations

import sqlite3
import warnings
import zlib
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from recmarket.catalogue.registry import PluginError
from recmarket.config import RunConfig
from recmarket.locks import UNWRITABLE, WriterLock
from recmarket.run.episode_rows import (
    COLUMNS,
    IDENTITY,
    INSERT_EPISODE,
    EpisodeRecord,
    EpisodeRows,
    StoredCall,
    episode_rows,
    row_dict,
    unpack_calls,
)
from recmarket.run.manifest import SCHEMA_VERSION, RunIdentity, stored_config, stored_roles
from recmarket.run.stored_rows import check_rows
from recmarket.sqlite_files import StoreError, connect, named_errors

STORE_NAME = "run.sqlite"
# Columns renamed since stores of this schema were made: older name -> the name read now
# (a store opened to write is renamed in place; one only read is read by the new names).
RENAMED_COLUMNS = {"strategy": "lessons"}  # the adaptive seats' lessons: (arm, reward)


def _connect_readonly(path: Path) -> sqlite3.Connection:
    """Read-only; on a read-only mount, where SQLite cannot create the WAL's shared-memory
    file, as an immutable file (it cannot change while nothing can write it)."""
    uri = path.resolve().as_uri()
    try:
        db = sqlite3.connect(f"{uri}?mode=ro", uri=True)
        db.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
        return db
    except sqlite3.OperationalError:
        return sqlite3.connect(f"{uri}?immutable=1", uri=True)


@contextmanager
def _named(path: Path) -> Iterator[None]:
    with named_errors(path, "finished episodes are kept"):
        yield


class EarlierEngine(UserWarning):
    """A store an earlier engine made: readable, its episodes another engine's."""


class RunStore:
    """One run's SQLite store: its manifest (settings, hash, roles), every episode's row
    and every role call's input and output. ``open`` creates or resumes a run; ``read``
    opens a finished or running one read-only (``episodes``, ``calls``, ``all_calls``)."""

    def __init__(self, path: Path, readonly: bool = False) -> None:
        self.path = path
        self.lock: WriterLock | None = None  # held by a store opened to write
        with _named(path):
            if readonly:  # show, export, report: never write, even on a read-only mount
                self.db = _connect_readonly(path)
            else:
                self.db = connect(path)

    @classmethod
    def open(
        cls, out_dir: Path, config: RunConfig, roles: Mapping[str, str] | None = None
    ) -> RunStore:
        """Create the run, or reopen it when the configuration and the roles answered from
        outside recmarket (``Agents.identity``) are the same. A store with no finished
        episode takes the new ones (nothing would be mixed); one with episodes but no
        manifest is damaged and never written to. The directory is locked for this process
        first (``DirectoryInUse`` names the process writing it), so the manifest is
        compared, and episodes are written, by one process at a time."""
        identity = RunIdentity.of(config, dict(roles or {}))
        try:
            lock = WriterLock(out_dir)
        except OSError as error:
            if error.errno not in UNWRITABLE:
                raise
            return cls._finished(out_dir, identity, error)
        try:
            store = cls(out_dir / STORE_NAME)
        except BaseException:
            lock.close()
            raise
        store.lock = lock
        try:
            store._check_or_write_manifest(out_dir, identity)
        except BaseException:
            store.close()
            raise
        return store

    def _check_or_write_manifest(self, out_dir: Path, identity: RunIdentity) -> None:
        with _named(self.path):
            self._create_schema()
            manifest = self.manifest()
            empty = self.db.execute("SELECT COUNT(*) FROM episodes").fetchone()[0] == 0
            if manifest and empty and not identity.recorded_in(manifest):
                with self.transaction() as db:
                    db.execute("DELETE FROM manifest")
                manifest = {}
        if not manifest and not empty:
            raise StoreError(
                f"{self.path}: has episodes but no manifest (damaged); it is not written to; "
                "choose another --out"
            )
        if not manifest:
            with _named(self.path):
                self._write_manifest(identity)
        else:
            identity.refuse_another(manifest, out_dir)
            if not empty:  # a resume reads the rows it holds
                self._check_rows(manifest, SCHEMA_VERSION)

    @classmethod
    def _finished(cls, out_dir: Path, identity: RunIdentity, error: OSError) -> RunStore:
        """The run in a directory this process cannot write (a read-only mount), opened
        read-only when it is this run and finished: a rerun then writes nothing, and needs
        no lock. Otherwise ``error`` (which names the path) stands, with what it means."""
        if not (out_dir / STORE_NAME).is_file():
            raise error
        store = cls.read(out_dir)
        try:
            identity.refuse_another(store.manifest(), out_dir)
            stored = store.db.execute("SELECT COUNT(*) FROM episodes").fetchone()[0]
            total = identity.config.total_episodes
            if stored < total:
                raise StoreError(
                    f"{error}; its run has {stored:,} of {total:,} episodes: "
                    "copy the directory somewhere writable to finish it"
                )
        except BaseException:
            store.close()
            raise
        return store

    @classmethod
    def read(cls, run_dir: Path) -> RunStore:
        """A finished or running store, opened read-only."""
        path = run_dir / STORE_NAME
        if not path.is_file():
            raise FileNotFoundError(f"{run_dir}: no run store ({STORE_NAME}) here")
        store = cls(path, readonly=True)
        try:
            manifest = store.manifest()
            if not manifest:
                raise StoreError(f"{path}: no manifest (damaged, or not a run store)")
            schema = manifest.get("schema", "")
            if not schema.isdigit() or int(schema) > SCHEMA_VERSION:
                raise StoreError(
                    f"{path}: made by a later recmarket (store schema {schema or 'unknown'}; "
                    f"this one reads up to {SCHEMA_VERSION}): upgrade recmarket to read it"
                )
            if int(schema) < SCHEMA_VERSION:
                warnings.warn(
                    EarlierEngine(
                        f"{path}: made by an earlier engine (store schema {schema}); its "
                        "episodes are read as they are, and no run resumes or replays them"
                    ),
                    stacklevel=2,
                )
            store._check_rows(manifest, int(schema))
        except BaseException:
            store.close()
            raise
        return store

    def _check_rows(self, manifest: dict[str, str], schema: int) -> None:
        """Refuse rows no reader can trust (``stored_rows``), naming store, episode, column.
        The rows are read without the settings where this process cannot read them (a
        plugin it lacks): the seats are then checked by their form."""
        try:
            cfg: RunConfig | None = stored_config(manifest)
        except (ValueError, PluginError):
            cfg = None
        with _named(self.path):
            check_rows(self.db, self.path, cfg, schema, RENAMED_COLUMNS)

    def _create_schema(self) -> None:
        later = ", ".join(COLUMNS[len(IDENTITY) :])
        self._name_columns_as_now()
        self.db.executescript(f"""
            CREATE TABLE IF NOT EXISTS manifest (key TEXT PRIMARY KEY, value TEXT NOT NULL);
            CREATE TABLE IF NOT EXISTS episodes (
                domain TEXT NOT NULL, ord INTEGER NOT NULL, episode_id TEXT NOT NULL,
                sim_user INTEGER NOT NULL, round INTEGER NOT NULL, profile TEXT NOT NULL,
                condition TEXT NOT NULL, {later}, PRIMARY KEY (domain, ord));
            CREATE TABLE IF NOT EXISTS calls (
                domain TEXT NOT NULL, ord INTEGER NOT NULL, body BLOB NOT NULL,
                PRIMARY KEY (domain, ord));
            CREATE TABLE IF NOT EXISTS choices (
                domain TEXT NOT NULL, ord INTEGER NOT NULL, body TEXT NOT NULL,
                PRIMARY KEY (domain, ord));
        """)

    def _name_columns_as_now(self) -> None:
        """Give a store's columns the names this version reads them by, in place (a rename
        keeps every value): stores of the same schema made before a column was renamed
        hold the same episodes under the older name."""
        held = {row[1] for row in self.db.execute("PRAGMA table_info(episodes)")}
        for older, now in RENAMED_COLUMNS.items():
            if older in held and now not in held:
                with self.transaction() as db:
                    db.execute(f"ALTER TABLE episodes RENAME COLUMN {older} TO {now}")

    def _write_manifest(self, identity: RunIdentity) -> None:
        with self.transaction():
            self.db.executemany("INSERT INTO manifest VALUES (?, ?)", identity.manifest().items())

    def manifest(self) -> dict[str, str]:
        """The manifest as a table."""
        with _named(self.path):
            return dict(self.db.execute("SELECT key, value FROM manifest"))

    def config(self) -> RunConfig:
        """The run's settings, as the manifest records them."""
        return stored_config(self.manifest())

    @property
    def replayable(self) -> bool:
        """Whether its settings alone play its episodes again: not a branch (whose
        settings change at a round) and no role answered by a backend the settings do not
        name (one handed to ``run`` in Python)."""
        manifest = self.manifest()
        return "branch" not in manifest and not stored_roles(manifest)

    class _Transaction:
        def __init__(self, db: sqlite3.Connection) -> None:
            self.db = db

        def __enter__(self) -> sqlite3.Connection:
            self.db.execute("BEGIN IMMEDIATE")
            return self.db

        def __exit__(self, kind: object, *_: object) -> None:
            self.db.execute("ROLLBACK" if kind else "COMMIT")

    def transaction(self) -> RunStore._Transaction:
        """A transaction: committed whole when the block ends, rolled back if it raises."""
        return self._Transaction(self.db)

    def write_episode(self, record: EpisodeRecord) -> None:
        """One episode and its calls, in one transaction."""
        self.write_rows([episode_rows(record)])

    def write_rows(self, rows: Sequence[EpisodeRows]) -> None:
        """Several episodes in one transaction: all of them or none survive a kill, and a
        batch costs one commit instead of one per episode."""
        with _named(self.path), self.transaction() as db:
            db.executemany(INSERT_EPISODE, [r.episode for r in rows])
            db.executemany("INSERT INTO calls VALUES (?, ?, ?)", [r.calls for r in rows if r.calls])
            chances = [r.choices for r in rows if r.choices]
            db.executemany("INSERT INTO choices VALUES (?, ?, ?)", chances)

    def count(self) -> int:
        """How many episodes the store holds, over its domains."""
        with _named(self.path):
            return int(self.db.execute("SELECT COUNT(*) FROM episodes").fetchone()[0])

    def done(self, domain: str) -> set[int]:
        """The episodes of ``domain`` the store holds, by order."""
        with _named(self.path):
            rows = self.db.execute("SELECT ord FROM episodes WHERE domain = ?", (domain,))
            return {o for (o,) in rows}

    def episodes(self, domain: str | None = None) -> list[dict[str, Any]]:
        """Episode rows in (domain, order) order, as dicts with Python types."""
        return list(self.iter_episodes(domain))

    def iter_episodes(
        self, domain: str | None = None, chunk: int = 10_000
    ) -> Iterator[dict[str, Any]]:
        """``episodes``, read ``chunk`` rows at a time: a reader that keeps each row in a
        form of its own (the report's) never holds every row as a dict, nor all of them as
        SQLite gave them."""
        sql = "SELECT * FROM episodes" + (" WHERE domain = ?" if domain else "")
        with _named(self.path):
            cursor = self.db.execute(sql + " ORDER BY domain, ord", (domain,) if domain else ())
            names = [RENAMED_COLUMNS.get(d[0], d[0]) for d in cursor.description]
            while rows := cursor.fetchmany(chunk):
                yield from (row_dict(row, names) for row in rows)

    def choices(self) -> dict[tuple[str, int], str]:
        """Each episode's decision alternatives as JSON (market.metrics.choice_alternatives),
        by (domain, order), where the run kept them (RunConfig.record_choices)."""
        with _named(self.path):
            if not self.db.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'choices'"
            ).fetchone():
                return {}  # a store made before choices were kept
            return {(d, o): body for d, o, body in self.db.execute("SELECT * FROM choices")}

    def kept_calls(self, domain: str) -> set[int]:
        """The orders of the domain's episodes whose calls the store holds."""
        with _named(self.path):
            rows = self.db.execute("SELECT ord FROM calls WHERE domain = ?", (domain,))
            return {o for (o,) in rows}

    def calls(self, domain: str, order: int) -> Iterator[StoredCall]:
        """The stored calls of one episode (none where they were not kept: an offline
        episode's come from ``recmarket.run.replay``)."""
        with _named(self.path):
            rows = self.db.execute(
                "SELECT body FROM calls WHERE domain = ? AND ord = ?", (domain, order)
            ).fetchall()
        for (body,) in rows:
            yield from self._unpack(domain, order, body)

    def _unpack(self, domain: str, order: int, body: bytes) -> list[StoredCall]:
        try:
            return unpack_calls(body)
        except (zlib.error, ValueError, TypeError) as exc:
            raise StoreError(
                f"{self.path}: the role calls of episode {domain}:{order} are corrupt ({exc})"
            ) from None

    def all_calls(self) -> Iterator[tuple[str, int, StoredCall]]:
        """Every role call of the run as (domain, order, call), in episode and call order."""
        with _named(self.path):
            rows = self.db.execute("SELECT domain, ord, body FROM calls ORDER BY domain, ord")
            for domain, order, body in rows:
                for call in self._unpack(domain, order, body):
                    yield domain, order, call

    def close(self) -> None:
        """Close the store and give up its lock."""
        self.db.close()
        if self.lock is not None:
            self.lock.close()

    def __enter__(self) -> RunStore:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
