"""The SQLite files recmarket writes (run stores, LLM call stores, spend accounts): one way
to open them and one way to report their failures.

Every failure names its file and the real cause (locked, full, read-only, corrupt) rather
than guessing, since the same message serves a full disk, a lost race and a damaged file.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


class StoreError(RuntimeError):
    """A store cannot be used; the message names the file and the real cause."""


def cause(exc: sqlite3.Error) -> str:
    """A SQLite error in words a user can act on (locked, full, read-only, not a database)."""
    text = str(exc).lower()
    if "locked" in text or "busy" in text:
        return "locked by another process (wait for it, or stop it)"
    if "full" in text:
        return "the disk is full"
    if "disk i/o" in text:
        return "cannot write it (disk I/O error: is the disk full?)"
    if "readonly" in text or "read-only" in text:
        return "read-only here (mount or permissions)"
    if "not a database" in text or "malformed" in text or "corrupt" in text:
        return "corrupt (damaged, or not a store of this kind)"
    return str(exc)


@contextmanager
def named_errors(path: Path | str, kept: str = "what was committed is kept") -> Iterator[None]:
    """SQLite errors as one StoreError line naming the file, what is wrong and what
    survives: every change is committed whole or not at all, so a rerun resumes."""
    try:
        yield
    except sqlite3.Error as exc:
        raise StoreError(f"{path}: {cause(exc)}; {kept}") from exc


def connect(path: Path, timeout: float = 5.0) -> sqlite3.Connection:
    """A writable store in autocommit mode with write-ahead logging: readers never block
    the writer, and a commit survives a killed process (synchronous=NORMAL).

    Switching a new file to WAL needs a moment alone with it and SQLite does not wait for
    that (the busy timeout does not apply), so worker processes opening one shared store
    at once retry the switch until ``timeout``."""
    with named_errors(path):
        path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(path, isolation_level=None, timeout=timeout)
        deadline = time.monotonic() + timeout
        while True:
            try:
                db.execute("PRAGMA journal_mode=WAL")
                break
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise
                time.sleep(0.02)
        db.execute("PRAGMA synchronous=NORMAL")
        return db
