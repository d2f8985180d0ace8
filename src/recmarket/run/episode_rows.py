"""An episode as the store's rows: its identity and metrics in the episodes table's
columns, its role calls as one compressed JSON array, and where kept its decision's
alternatives as JSON (``recmarket.run.store`` writes and reads them; a worker makes them
where the episode was played)."""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, NamedTuple

from recmarket.market.metrics import EpisodeMetrics

IDENTITY = ("domain", "ord", "episode_id", "sim_user", "round", "profile", "condition")
METRICS = tuple(EpisodeMetrics.model_fields)
COLUMNS = (*IDENTITY, *METRICS, "rep_platform", "rep_note", "lessons", "identities", "written")
BOOLEANS = {m for m, f in EpisodeMetrics.model_fields.items() if f.annotation is bool}


@dataclass(frozen=True)
class StoredCall:
    """One role call as the store holds it: its order in the episode, the role, its input
    and its output."""

    seq: int
    role: str
    input: dict[str, Any]
    output: dict[str, Any] | None  # None: the call whose role failed, ending the episode


@dataclass(frozen=True)
class EpisodeRecord:
    """A finished episode as plain data: it can cross process and machine boundaries."""

    identity: dict[str, Any]
    metrics: dict[str, Any]
    reputation: tuple[str | None, str | None]  # the name the record went to, and its note
    calls: list[tuple[str, str, str]] | None  # (role, input JSON, output JSON), in order;
    # None: not kept (an offline episode past the first of its domain: run/replay.py)
    lessons: str | None = None  # JSON {platform: [arm, reward]} of adaptive platforms
    identities: str | None = None  # JSON {seat: name shown} where a seat showed another name
    written: str | None = None  # JSON [[name, label, note, source], ...] written after it
    # JSON: the decision's alternatives with their chances (market.metrics.choice_alternatives),
    # kept where the run asks (RunConfig.record_choices)
    choices: str | None = None


def pack_calls(calls: list[tuple[str, str, str]]) -> bytes:
    """An episode's calls as one JSON array of [role, input, output], compressed once. The
    inputs and outputs are already JSON, so they are spliced in, not parsed again."""
    body = ",".join(f"[{json.dumps(role)},{i},{o}]" for role, i, o in calls)
    return zlib.compress(f"[{body}]".encode(), 1)


class EpisodeRows(NamedTuple):
    """An episode as the rows it becomes: the episodes row, the (domain, ord, packed calls)
    row and the (domain, ord, choices) row, each of the last two None where not kept."""

    episode: list[Any]
    calls: tuple[str, int, bytes] | None
    choices: tuple[str, int, str] | None = None


INSERT_EPISODE = (
    f"INSERT INTO episodes ({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))})"
)


def episode_rows(record: EpisodeRecord) -> EpisodeRows:
    """The rows of an episode, made where it was played (a worker compresses its own calls,
    so the process that writes the store only inserts them)."""
    row = [record.identity[c] for c in IDENTITY] + [record.metrics[m] for m in METRICS]
    row += [*record.reputation, record.lessons, record.identities, record.written]
    where = (record.identity["domain"], record.identity["ord"])
    return EpisodeRows(
        row,
        None if record.calls is None else (*where, pack_calls(record.calls)),
        None if record.choices is None else (*where, record.choices),
    )


def unpack_calls(blob: bytes) -> list[StoredCall]:
    """An episode's calls from the store's compressed array."""
    return [
        StoredCall(seq, r, i, o) for seq, (r, i, o) in enumerate(json.loads(zlib.decompress(blob)))
    ]


def row_dict(values: Iterable[Any], names: Iterable[str] = COLUMNS) -> dict[str, Any]:
    """An episode row as a dict with Python types (an episodes row's values, or those
    ``episode_rows`` makes, in ``COLUMNS`` order)."""
    return {n: bool(v) if n in BOOLEANS else v for n, v in zip(names, values, strict=True)}
