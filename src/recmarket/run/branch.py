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
from collections import Counter
from pathlib import Path
from typing import Any

from recmarket.config import RunConfig
from recmarket.config_file import MAX_DEPTH, ConfigError, merge, refuse_deep
from recmarket.data.episodes import episodes_before, owners
from recmarket.locks import writer_elsewhere
from recmarket.run.episode_rows import COLUMNS, EpisodeRows, episode_rows
from recmarket.run.manifest import RunConflict, stored_roles
from recmarket.run.replay import replayed
from recmarket.run.store import STORE_NAME, RunStore


def parsed_value(text: str) -> Any:
    """A ``--set`` value read as TOML (``0.5``, ``true``, ``"decay"``, ``[1, 2]``), or
    else as the text itself; one nested past any setting is refused."""
    try:
        value = tomllib.loads(f"value = {text}")["value"]
    except tomllib.TOMLDecodeError:
        return text
    except RecursionError:  # the parser recurses once per level
        raise ConfigError("--set: a value nested too deeply to be a setting") from None
    refuse_deep(value, "--set")
    return value


def overrides(assignments: list[str]) -> dict[str, Any]:
    """``["market.rho=1.0", ...]`` as nested settings; a malformed one is named."""
    tree: dict[str, Any] = {}
    for assignment in assignments:
        path, equals, value = assignment.partition("=")
        if not equals or not path.strip():
            raise ValueError(f"--set {assignment[:60]!r}: give KEY=VALUE, e.g. market.rho=1.0")
        if path.count(".") > MAX_DEPTH:
            raise ValueError(f"--set: the key {path[:60]!r}... is deeper than any setting")
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
            packed = episode_rows(record).calls
            assert packed is not None  # replayed records keep their calls
            bodies[(domain, order)] = packed[2]
    return bodies


# Settings that choose a run's requests (the sample, its users and their order): a branch
# plays its parent's requests, or its contrast with the parent is not paired.
REQUEST_SETTINGS = ("seed", "data", "domains", "episodes")


def prepared(
    parent_dir: Path, out_dir: Path, from_round: int, changes: dict[str, Any]
) -> RunConfig:
    """The branch's settings, after its store holds the parent's episodes of the rounds
    before ``from_round`` (or, on a rerun, after checking it is the same branch). Refused,
    each in one line and before anything is written: a round the parent does not have, a
    parent another process is writing, one that lacks an episode of the rounds to copy,
    changes to the settings that choose the requests, and an ``out_dir`` that holds
    another branch (or a run that is none)."""
    if from_round < 1:
        raise ConfigError(f"--from-round {from_round}: rounds count from 1")
    holder = writer_elsewhere(parent_dir)
    if holder is not None:
        raise RunConflict(
            f"{parent_dir} is being written by another recmarket process (pid {holder}); "
            "branch it once that run has finished or stopped"
        )
    with RunStore.read(parent_dir) as parent:
        config, manifest = parent.config(), parent.manifest()
        kept = [r for r in parent.episodes() if r["round"] < from_round - 1]
        _check_rounds(parent_dir, config, kept, from_round)
        changed = RunConfig.model_validate(merge(json.loads(config.model_dump_json()), changes))
        choosing = [k for k in REQUEST_SETTINGS if getattr(changed, k) != getattr(config, k)]
        if choosing:
            raise ConfigError(
                f"--set: {', '.join(choosing)} choose the requests; a branch plays its "
                "parent's requests (run a new cell to change them)"
            )
        bodies, choices = _bodies(parent, kept), parent.choices()
    origin = {
        "parent": str(parent_dir),
        "parent_config_hash": manifest["config_hash"],
        "from_round": from_round,
        "changes": json.loads(json.dumps(changes)),
    }
    _check_same_branch(out_dir, origin)
    store = RunStore.open(out_dir, changed, roles=stored_roles(manifest))
    try:
        # the entry first: a copy killed half-way is then finished by the rerun, never
        # taken for a run that is no branch
        with store.transaction() as db:
            db.execute(
                "INSERT OR REPLACE INTO manifest VALUES ('branch', ?)", (json.dumps(origin),)
            )
        held = {domain: store.done(domain) for domain in changed.domains}
        copied = []
        for row in kept:
            where = (row["domain"], row["ord"])
            if row["ord"] not in held[row["domain"]]:
                chances = (*where, choices[where]) if where in choices else None
                copied.append(
                    EpisodeRows([row.get(c) for c in COLUMNS], (*where, bodies[where]), chances)
                )
        store.write_rows(copied)
    finally:
        store.close()
    return changed


def _check_rounds(
    parent_dir: Path, config: RunConfig, kept: list[dict[str, Any]], from_round: int
) -> None:
    """Refuse a round past the parent's last, or a parent that lacks an episode of the
    rounds before ``from_round`` (it stopped before playing them): the branch would play
    those under the changed settings and call them its parent's."""
    episodes = config.episodes
    rounds = max(Counter(owners(episodes.requests, episodes.users_per_profile)).values())
    if from_round > rounds:
        raise ConfigError(
            f"--from-round {from_round}: the parent's users have {rounds} rounds at most"
        )
    expected = len(config.domains) * episodes_before(
        episodes.requests, episodes.users_per_profile, from_round - 1
    )
    if len(kept) < expected:
        raise RunConflict(
            f"{parent_dir} lacks {expected - len(kept)} of the {expected} episodes of rounds "
            f"1-{from_round - 1} (it stopped before playing them); finish it (rerun its "
            "command) or branch from an earlier round"
        )


def _check_same_branch(out_dir: Path, origin: dict[str, Any]) -> None:
    """Refuse an ``out_dir`` that holds another branch, naming what differs, or a run that
    is no branch; one that holds nothing, or this branch (a rerun), passes."""
    if not (out_dir / STORE_NAME).is_file():
        return
    with RunStore.read(out_dir) as store:
        stored = store.manifest().get("branch")
    if stored is None:
        raise RunConflict(f"{out_dir} holds a run that is not a branch; choose another --out")
    found = json.loads(stored)
    differs = [
        f"{key} {found.get(key)!r} -> {origin[key]!r}"
        for key in ("parent_config_hash", "from_round", "changes")
        if found.get(key) != origin[key]
    ]
    if differs:
        raise RunConflict(
            f"{out_dir} holds another branch ({'; '.join(differs)}); choose another --out"
        )
