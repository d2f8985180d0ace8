"""Every attempt of every LLM role call: the raw reply, why it was refused, and the re-ask.

A model that answers badly is an episode outcome, and an outcome has to be readable: the
episode row says which role failed, these rows say what the model wrote and what was
wrong with it. They sit in the run's store beside the call store, keyed by the role, a
digest of the call's typed input and its sample index, which is what an episode's stored
call list holds too (``input_digest`` of the input as stored), so ``show`` and ``export``
find a call's attempts from the episode. Replays write the same rows again, unchanged.
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from recmarket.sqlite_files import connect, named_errors

SCHEMA = """
CREATE TABLE IF NOT EXISTS llm_attempts (
    role TEXT NOT NULL, input_digest TEXT NOT NULL, sample INTEGER NOT NULL,
    attempt INTEGER NOT NULL, reply TEXT NOT NULL, error TEXT, reask TEXT,
    PRIMARY KEY (role, input_digest, sample, attempt))
"""
ERROR_KINDS = 5  # most common validation errors a summary names


def input_digest(data: dict[str, Any]) -> str:
    """A call's input, as its typed model dumps it or as an episode stores it, hashed."""
    text = json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True)
class Attempt:
    """One attempt at a call whose reply failed its contract: what the model said, why it
    failed, and what it was told when asked again."""

    attempt: int
    reply: str
    error: str | None  # None: the reply was used
    reask: str | None  # what the model was told next, if it was asked again


class AttemptLog:
    """Writes attempts to the run's store; without a path, keeps nothing (a check)."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.db = None
        if path is not None:
            self.db = connect(path, timeout=30)
            with named_errors(path):
                self.db.execute(SCHEMA)

    def record(self, role: str, digest: str, sample: int, attempts: list[Attempt]) -> None:
        """Keep every attempt of one call (role, call digest and sample), replacing what an
        earlier run of the same call kept."""
        if self.db is None or self.path is None:
            return
        rows = [(role, digest, sample, a.attempt, a.reply, a.error, a.reask) for a in attempts]
        with named_errors(self.path):
            self.db.executemany(
                "INSERT OR REPLACE INTO llm_attempts VALUES (?, ?, ?, ?, ?, ?, ?)", rows
            )

    def close(self) -> None:
        """Close the store, if there is one."""
        if self.db is not None:
            self.db.close()


def _has_attempts(db: sqlite3.Connection) -> bool:
    """Whether the store keeps attempts (not an offline run, nor one made before them)."""
    found = db.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'llm_attempts'"
    ).fetchone()
    return found is not None


def read_attempts(
    db: sqlite3.Connection, call: tuple[str, str] | None = None
) -> dict[tuple[str, str], list[Attempt]]:
    """Stored calls' attempts by (role, input digest), in order, from a run store's
    connection: every call's, or only ``call``'s (a role and an input digest); {} for a
    store that keeps none."""
    if not _has_attempts(db):
        return {}
    where, params = ("WHERE role = ? AND input_digest = ? ", call) if call else ("", ())
    rows = db.execute(
        "SELECT role, input_digest, sample, attempt, reply, error, reask FROM llm_attempts "
        f"{where}ORDER BY role, input_digest, sample, attempt",
        params,
    ).fetchall()
    found: dict[tuple[str, str], list[Attempt]] = {}
    sample_of: dict[tuple[str, str], int] = {}
    for role, digest, sample, attempt, reply, error, reask in rows:
        # An identical input asked with another sample index: the first one's attempts.
        if sample_of.setdefault((role, digest), sample) == sample:
            found.setdefault((role, digest), []).append(Attempt(attempt, reply, error, reask))
    return found


def error_kind(error: str) -> str:
    """A validation error with its particulars (ids, counts, quoted values) blanked, so
    the same fault in many calls counts as one kind."""
    kind = re.sub(r"'[^']*'|\"[^\"]*\"|\[[^\]]*\]|\d+", "…", error)
    return kind[:160]


def common_errors(db: sqlite3.Connection) -> list[tuple[str, int]]:
    """The most common kinds of validation error over every stored attempt, with their
    counts (only the errors are read, not the replies)."""
    if not _has_attempts(db):
        return []
    errors = db.execute("SELECT error FROM llm_attempts WHERE error IS NOT NULL")
    return Counter(error_kind(error) for (error,) in errors).most_common(ERROR_KINDS)


def first_replies_valid(db: sqlite3.Connection) -> dict[str, tuple[int, int]]:
    """Per role: (calls whose first reply kept the contract, calls), before any re-ask;
    what structured outputs change, read from a run store's attempts."""
    found: dict[str, list[bool]] = {}
    for (role, _), attempts in read_attempts(db).items():
        found.setdefault(role, []).append(attempts[0].error is None)
    return {role: (sum(firsts), len(firsts)) for role, firsts in found.items()}
