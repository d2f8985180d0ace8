"""Paired counterfactual branches: a finished run's requests replayed with some
settings changed from round t on.

The branch's store starts with the parent's episodes of rounds 1 to t - 1, each with every
role call it made, copied as they are (an offline parent's calls it did not keep are played
again from its settings, run/replay.py; no LLM call is made again), and then plays rounds t on
under the changed settings, resuming exactly as an interrupted run would: the reputation
memory and the adaptive platforms' lessons are rebuilt from the copied episodes. Both runs
hold the same requests, so a contrast between them is paired episode by episode. A branch
that changes nothing is its parent, record for record.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

from recmarket.config import RunConfig
from recmarket.config_file import merge
from recmarket.run.episode_rows import COLUMNS, EpisodeRows, episode_rows
from recmarket.run.manifest import stored_roles
from recmarket.run.replay import replayed
from recmarket.run.runner import RunResult, run
from recmarket.run.store import RunStore


def parsed_value(text: str) -> Any:
    """A ``--set`` value read as TOML (``0.5``, ``true``, ``"decay"``, ``[1, 2]``), or
    else as the text itself."""
    try:
        return tomllib.loads(f"value = {text}")["value"]
    except tomllib.TOMLDecodeError:
        return text


def overrides(assignments: list[str]) -> dict[str, Any]:
    """``["market.rho=1.0", ...]`` as nested settings; a malformed one is named."""
    tree: dict[str, Any] = {}
    for assignment in assignments:
        path, equals, value = assignment.partition("=")
        if not equals or not path.strip():
            raise ValueError(f"--set {assignment!r}: give KEY=VALUE, e.g. market.rho=1.0")
        nested: dict[str, Any] = {path.strip().split(".")[-1]: parsed_value(value.strip())}
        for part in reversed(path.strip().split(".")[:-1]):
            nested = {part: nested}
        tree = merge(tree, nested)
    return tree


def _bodies(parent: RunStore, kept: list[dict[str, Any]]) -> dict[tuple[str, int], bytes]:
    """The packed calls of the episodes a branch copies: as the parent stored them, or
    played again where an offline parent kept none (run/replay.py), so that the branch
    holds every call of its episodes."""
    bodies = dict(
        ((domain, order), body)
        for domain, order, body in parent.db.execute("SELECT domain, ord, body FROM calls")
    )
    missing: dict[str, list[int]] = {}
    for row in kept:
        if (row["domain"], row["ord"]) not in bodies:
            missing.setdefault(row["domain"], []).append(row["ord"])
    for domain, orders in missing.items():
        for order, record in replayed(parent, domain, orders).items():
            _, packed = episode_rows(record)
            assert packed is not None  # replayed records keep their calls
            bodies[(domain, order)] = packed[2]
    return bodies


def branch(
    parent_dir: Path, out_dir: Path, from_round: int, changes: dict[str, Any], **options: Any
) -> RunResult:
    """Play ``parent_dir``'s requests into ``out_dir`` with ``changes`` from round
    ``from_round`` (1-based) on; a rerun resumes the branch."""
    if from_round < 1:
        raise ValueError(f"--from-round {from_round}: rounds count from 1")
    with RunStore.read(parent_dir) as parent:
        config, manifest = parent.config(), parent.manifest()
        kept = [r for r in parent.episodes() if r["round"] < from_round - 1]
        bodies = _bodies(parent, kept)
    changed = RunConfig.model_validate(merge(json.loads(config.model_dump_json()), changes))
    store = RunStore.open(out_dir, changed, roles=stored_roles(manifest))
    try:
        if not store.episodes():
            rows: list[EpisodeRows] = [
                (
                    [row.get(c) for c in COLUMNS],
                    (row["domain"], row["ord"], bodies[(row["domain"], row["ord"])]),
                )
                for row in kept
            ]
            store.write_rows(rows)
            origin = {
                "parent": str(parent_dir),
                "parent_config_hash": manifest["config_hash"],
                "from_round": from_round,
                "changes": changes,
            }
            with store.transaction() as db:
                db.execute(
                    "INSERT OR REPLACE INTO manifest VALUES ('branch', ?)", (json.dumps(origin),)
                )
    finally:
        store.close()
    return run(changed, out_dir, **options)
