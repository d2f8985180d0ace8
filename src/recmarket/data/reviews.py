"""The review file, read in two streamed passes.

Pass one keeps only what episode construction needs, as compact numpy columns (hashed user
and item ids, time, rating, line number): about 36 bytes per review, so a 1.5 GB file with
millions of reviews costs a little over a hundred megabytes. Pass two re-reads only the lines
of the reviews that sampled episodes actually show (titles and texts), by line number.
"""

from __future__ import annotations

import hashlib
import json
from array import array
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from recmarket.data import raw
from recmarket.data.raw import DataError, LoadIssues, bounded_lines, iter_lines, open_bytes

# The pre-release sample (and the website's Quick Start) spell some keys differently.
TIMESTAMP_KEYS = ("timestamp", "sortTimestamp")


def id_hash(value: str) -> int:
    """A stable signed 64-bit key for an id string (collisions are negligible at 2^64)."""
    return int.from_bytes(
        hashlib.blake2b(value.encode(), digest_size=8).digest(), "little", signed=True
    )


@dataclass(frozen=True)
class ReviewTable:
    """One row per usable review, in file order."""

    user: np.ndarray  # int64 hash of user_id
    item: np.ndarray  # int64 hash of parent_asin
    timestamp: np.ndarray  # int64, milliseconds
    rating: np.ndarray  # float32, 1..5
    line: np.ndarray  # int64, 1-based line in the file

    def __len__(self) -> int:
        return len(self.line)

    def select(self, mask: np.ndarray) -> ReviewTable:
        """The rows where ``mask`` is true."""
        return ReviewTable(
            *(col[mask] for col in (self.user, self.item, self.timestamp, self.rating, self.line))
        )


MAX_TIMESTAMP_MS = 7_258_118_400_000  # 2200-01-01: anything later is not a review time


def _review_fields(record: dict[str, Any]) -> tuple[str, str, int, float] | str:
    """The fields pass one keeps, or the reason the record is unusable."""
    user, item = record.get("user_id"), record.get("parent_asin")
    if not isinstance(user, str) or not user:
        return "missing required field: user_id"
    if not isinstance(item, str) or not item:
        return "missing required field: parent_asin"
    rating = record.get("rating")
    if isinstance(rating, bool) or not isinstance(rating, int | float):
        return "missing required field: rating"
    if not 1.0 <= rating <= 5.0:
        return f"rating out of range: {rating!r} (expected 1 to 5)"
    stamp = next((record[k] for k in TIMESTAMP_KEYS if k in record), None)
    if isinstance(stamp, bool) or not isinstance(stamp, int | float) or stamp < 0:
        return "missing required field: timestamp (milliseconds)"
    if not stamp < MAX_TIMESTAMP_MS:
        return f"timestamp out of range: {stamp!r} (milliseconds before the year 2200 expected)"
    return user, item, int(stamp), float(rating)


def scan_reviews(path: Path, issues: LoadIssues) -> ReviewTable:
    """Pass one: stream the review file into compact columns, repeated reviews dropped
    (see ``drop_duplicates``)."""
    users, items, stamps, lines = array("q"), array("q"), array("q"), array("q")
    ratings = array("f")
    for lineno, _, record in iter_lines(path, issues):
        fields = _review_fields(record)
        if isinstance(fields, str):
            issues.skip(lineno, fields)
            continue
        user, item, stamp, rating = fields
        users.append(id_hash(user))
        items.append(id_hash(item))
        stamps.append(stamp)
        ratings.append(rating)
        lines.append(lineno)
    table = ReviewTable(
        user=np.frombuffer(users, dtype=np.int64),
        item=np.frombuffer(items, dtype=np.int64),
        timestamp=np.frombuffer(stamps, dtype=np.int64),
        rating=np.frombuffer(ratings, dtype=np.float32),
        line=np.frombuffer(lines, dtype=np.int64),
    )
    return drop_duplicates(table, issues)


def drop_duplicates(table: ReviewTable, issues: LoadIssues) -> ReviewTable:
    """The table with one review per user, item and time: of lines that agree on the
    three, the last in the file is kept (a review edited later, or crawled again, replaces
    the earlier one) and the others are counted in ``issues``.

    A user reviews an item once at a given time, so two such lines are one review, whatever
    their rating or text (an edit changes those: keeping both put the target's own purchase
    in its history in 13 of 300 requests, and comparing bytes let re-serialised copies
    through). Rows are sorted once by a mix of the three (one stable argsort: file order
    within ties), and neighbours compared on each column exactly, so a collision of the mix
    cannot drop a line."""
    keys = (table.user, table.item, table.timestamp)
    mixed = np.zeros(len(table), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for column in keys:  # FNV-style: multiply, then fold in the next column
            mixed = mixed * np.uint64(0x100000001B3) ^ column.astype(np.int64).view(np.uint64)
    order = np.argsort(mixed, kind="stable")
    same = np.zeros(len(order), dtype=bool)  # row of ``order`` equal to the row before it
    same[1:] = True
    for column in (mixed, *keys):
        in_order = column[order]
        same[1:] &= in_order[1:] == in_order[:-1]
    if not same.any():
        return table
    group = np.cumsum(~same) - 1  # each position's group of equal rows, in file order
    last = np.zeros(group[-1] + 1, dtype=np.int64)
    last[group] = np.arange(len(order))  # the last assignment of a group wins: its last row
    dropped = np.flatnonzero(np.append(same[1:], False))  # a row the next one repeats
    pairs = sorted(
        (int(table.line[order[row]]), int(table.line[order[last[group[row]]]])) for row in dropped
    )
    for line, kept in pairs:
        issues.duplicate(line, kept)
    keep = np.ones(len(table), dtype=bool)
    keep[order[dropped]] = False
    return table.select(keep)


def read_review_lines(
    path: Path, wanted: Collection[int], fields: tuple[str, ...] | None = None
) -> dict[int, dict[str, Any]]:
    """Pass two: the parsed records at the given line numbers (which pass one validated),
    with only ``fields`` kept when given: a long run reads a million lines here, and whole
    records (images, votes, ...) held at once were most of its peak memory."""
    wanted = set(wanted)
    found: dict[int, dict[str, Any]] = {}
    if not wanted:
        return found
    last = max(wanted)
    # bytes: a bad line elsewhere is not decoded at all; bounded: numbered as pass one did
    with open_bytes(path) as fh:
        for lineno, line in enumerate(bounded_lines(fh, raw.MAX_LINE_BYTES), start=1):
            if line is not None and lineno in wanted:
                record = json.loads(line)
                found[lineno] = {f: record.get(f) for f in fields} if fields else record
            if lineno >= last:
                break
    missing = wanted - found.keys()
    if missing:
        raise DataError(f"{path}:{min(missing)}: line vanished between passes; file changed?")
    return found
