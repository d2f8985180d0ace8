"""The LLM call store: every call's request and response, keyed so that a repeated
identical request is served from it.

The key hashes what determines an answer (model, endpoint, rendered messages, temperature,
token limit, sample index) and nothing operational (timeouts, retry counts), as inspect_ai
does. Calls are written to the run's own SQLite file; a shared cache file, when given, is
read too (and written), so cells that share requests share their calls.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from recmarket.sqlite_files import connect, named_errors

SCHEMA = """
CREATE TABLE IF NOT EXISTS llm_calls (
    key TEXT PRIMARY KEY, role TEXT NOT NULL, model TEXT NOT NULL, base_url TEXT NOT NULL,
    messages TEXT NOT NULL, params TEXT NOT NULL, sample INTEGER NOT NULL,
    response TEXT NOT NULL, prompt_tokens INTEGER NOT NULL, completion_tokens INTEGER NOT NULL,
    latency REAL NOT NULL, retries INTEGER NOT NULL, source TEXT NOT NULL, created TEXT NOT NULL,
    cached_tokens INTEGER NOT NULL DEFAULT 0, seq INTEGER, tier TEXT)
"""
# Columns in the order rows are written and read. A store made before ``cached_tokens``
# (prompt tokens the provider served from its prompt cache) gains it, 0 for its calls, and
# one made before ``seq`` gains that, empty for its calls, and ``tier`` (the tier that billed
# a call sent: flex, batch; empty for the standard one) likewise.
COLUMNS = (
    "key, role, model, base_url, messages, params, sample, response, prompt_tokens, "
    "completion_tokens, latency, retries, source, created, cached_tokens, seq, tier"
)
LATER_COLUMNS = {"cached_tokens": "INTEGER NOT NULL DEFAULT 0", "seq": "INTEGER", "tier": "TEXT"}
# What each endpoint said of a model the first time a call to it was sent from this store
# (``OpenAIChatAPI.model_report``): a later run whose endpoint says otherwise is refused
# before it sends, rather than served another model's answers under the same name.
MODELS = """
CREATE TABLE IF NOT EXISTS llm_models (
    model TEXT NOT NULL, base_url TEXT NOT NULL, report TEXT NOT NULL, seen TEXT NOT NULL,
    PRIMARY KEY (model, base_url))
"""


@dataclass(frozen=True)
class CachedCall:
    """One stored answer: its text, token counts, latency and what answered it."""

    response: str
    prompt_tokens: int
    completion_tokens: int
    latency: float
    retries: int
    cached_tokens: int = 0  # prompt tokens the provider served from its prompt cache
    # The counts were estimated from characters (the endpoint reported none usable); not
    # stored: an answer served from a store is charged nothing
    estimated: bool = False
    # The tier that billed it and the flex "busy" answers it met (the ledger's; not stored)
    tier: str | None = None
    busy: int = 0

    @property
    def tokens(self) -> tuple[int, int]:
        """(prompt, completion) tokens, as the ledger counts them."""
        return self.prompt_tokens, self.completion_tokens


def call_key(
    model: str, base_url: str, messages: list[dict[str, str]], params: dict[str, Any], sample: int
) -> str:
    """The key of a call: a digest of everything that determines its answer (model,
    endpoint, messages, sampling parameters, sample index)."""
    payload = json.dumps([model, base_url, messages, params, sample], sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()


class CallCache:
    """Reads from every file, writes to all of them (the first is the run's own)."""

    def __init__(self, paths: list[Path]) -> None:
        self.paths, self.dbs = paths, []
        for path in paths:
            db = connect(path, timeout=30)
            with named_errors(path):
                db.execute(SCHEMA)
                db.execute(MODELS)
                present = {row[1] for row in db.execute("PRAGMA table_info(llm_calls)")}
                for column, kind in LATER_COLUMNS.items():
                    if column not in present:
                        db.execute(f"ALTER TABLE llm_calls ADD COLUMN {column} {kind}")
            self.dbs.append(db)
        # Calls are numbered in the order they are made (sent, or served from a shared
        # store), on from the run's last: rows are written as calls complete, so that a
        # kill never loses a finished call, and ``ORDER BY seq`` reads them in call order.
        self._seq = 0
        if self.dbs:
            with named_errors(paths[0]):
                last = self.dbs[0].execute("SELECT MAX(seq) FROM llm_calls").fetchone()[0]
            self._seq = 0 if last is None else last + 1

    def reported(self, model: str, base_url: str) -> str | None:
        """What the endpoint said of ``model`` when a call to it was first stored (None:
        nothing yet, or a store made before reports were kept)."""
        with named_errors(" or ".join(map(str, self.paths))):
            for db in self.dbs:
                row = db.execute(
                    "SELECT report FROM llm_models WHERE model = ? AND base_url = ?",
                    (model, base_url),
                ).fetchone()
                if row is not None:
                    return str(row[0])
        return None

    def record_report(self, model: str, base_url: str, report: str) -> None:
        """Keep what the endpoint says of ``model`` in every store that has none yet."""
        now = datetime.now(UTC).isoformat(timespec="seconds")
        with named_errors(" or ".join(map(str, self.paths))):
            for db in self.dbs:
                db.execute(
                    "INSERT OR IGNORE INTO llm_models VALUES (?, ?, ?, ?)",
                    (model, base_url, report, now),
                )
                db.commit()

    def issue(self) -> int:
        """The next call's number in the run's call order."""
        seq, self._seq = self._seq, self._seq + 1
        return seq

    def get(self, key: str) -> CachedCall | None:
        """The stored answer to ``key`` in the first store that holds one, else None."""
        with named_errors(" or ".join(map(str, self.paths))):
            return self._get(key)

    def _get(self, key: str) -> CachedCall | None:
        for i, db in enumerate(self.dbs):
            row = db.execute(f"SELECT {COLUMNS} FROM llm_calls WHERE key = ?", (key,)).fetchone()
            if row is not None:
                if i:  # copy a shared hit into the run's own file: the run stays complete
                    self.dbs[0].execute(
                        f"INSERT OR IGNORE INTO llm_calls ({COLUMNS}) VALUES "
                        "(?,?,?,?,?,?,?,?,?,?,?,?,'shared',?,?,?,NULL)",
                        (*row[:12], *row[13:15], self.issue()),
                    )
                return CachedCall(row[7], row[8], row[9], row[10], row[11], row[14])
        return None

    def put(
        self,
        key: str,
        role: str,
        model: str,
        base_url: str,
        messages: list[dict[str, str]],
        params: dict[str, Any],
        sample: int,
        call: CachedCall,
        seq: int,
    ) -> None:
        """Store a call that was made as the ``seq``-th of the run (``issue``)."""
        row = (
            key,
            role,
            model,
            base_url,
            json.dumps(messages),
            json.dumps(params),
            sample,
            call.response,
            call.prompt_tokens,
            call.completion_tokens,
            call.latency,
            call.retries,
            "network",
            datetime.now(UTC).isoformat(timespec="seconds"),
            call.cached_tokens,
            seq,
            call.tier,
        )
        marks = ",".join("?" * len(row))
        for path, db in zip(self.paths, self.dbs, strict=True):
            with named_errors(path):
                db.execute(f"INSERT OR IGNORE INTO llm_calls ({COLUMNS}) VALUES ({marks})", row)

    def close(self) -> None:
        """Close every store."""
        for db in self.dbs:
            db.close()
