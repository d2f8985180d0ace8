"""An offline episode's role calls, played again from the run's settings.

An offline run keeps the calls of only the first episodes of each domain (``CALLS_KEPT``):
every other episode is a deterministic function of the seed and the settings, so its calls
are made again when someone asks for them (``show``, ``export --calls``, calibration). A
domain's schedule is replayed up to the last episode asked for: every episode depends only
on those before it in schedule order, so that prefix plays it exactly as the run did. Each
replayed episode's row is compared with the stored one; if the code now plays an episode
differently (a recmarket or plugin changed since the run), nothing is returned in its
place and the error names the episode and the version the run was made with. The calls of
the kept episodes within the replayed prefix are compared too, since a change of wording can
leave every row as it was, and a plugin whose source changed since the run is refused
before anything is played.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable, Iterator
from pathlib import Path

from recmarket.agents.rules import offline_agents
from recmarket.market.outcome import Outcome
from recmarket.run.episode_rows import EpisodeRecord, StoredCall, episode_rows, row_dict
from recmarket.run.loaded import embedder_for
from recmarket.run.manifest import SCHEMA_VERSION, made_by, other_engine, stored_variants
from recmarket.run.provenance import changed_variants, outside_variants
from recmarket.run.records import as_record
from recmarket.run.rounds import prepare, restored_round
from recmarket.run.runner import play_pending
from recmarket.run.store import RunStore, StoreError


class ReplayMismatch(StoreError):
    """The code now plays a stored episode differently: its calls cannot be made again."""


def replayed(
    store: RunStore, domain: str, orders: Iterable[int], cache_dir: Path | None = None
) -> dict[int, EpisodeRecord]:
    """The episodes ``orders`` of ``domain`` played again, each with its calls, after
    checking that each equals its stored row."""
    wanted = set(orders)
    if not wanted:
        return {}
    cfg = store.config()
    if cfg.uses_llm or not store.replayable:
        raise StoreError(
            f"{store.path}: episodes {domain}:{sorted(wanted)[:3]} have no stored calls, and "
            "this run's settings alone cannot play them again (an LLM, a branch, or roles "
            "handed to run in Python); the store is damaged"
        )
    manifest = store.manifest()
    if manifest.get("schema") != str(SCHEMA_VERSION):
        raise ReplayMismatch(
            f"{store.path} {other_engine(manifest)} to read the role calls it did not keep"
        )
    if changes := changed_variants(stored_variants(manifest), outside_variants(cfg)):
        raise ReplayMismatch(
            f"{store.path}: the run was made with other plugin code than this process has "
            f"({changes}), so its role calls cannot be made again; install the version the "
            "run was made with to read them"
        )
    embedder = embedder_for(cfg.embedder)
    prepared = prepare(cfg, domain, embedder, cache_dir)
    last = max(wanted)
    prefix = [r for r in prepared.requests if r.order <= last]
    # The episodes whose calls the run kept check the replay's calls as well as its rows:
    # code that words an explanation differently may leave every row as it was.
    checks = {o for o in store.kept_calls(domain) if o <= last}
    found: dict[int, EpisodeRecord] = {}

    def keep(outcome: Outcome) -> None:
        if outcome.request.order in wanted | checks:
            found[outcome.request.order] = as_record(outcome, keep_calls=True)

    round_ = restored_round(
        cfg, prepared, offline_agents(embedder, cfg.agents, cfg.roles), embedder, []
    )
    asyncio.run(play_pending(cfg, round_, prefix, keep))
    stored = {row["ord"]: row for row in store.episodes(domain) if row["ord"] in found}
    for order, record in found.items():
        differs = order in stored and row_dict(episode_rows(record).episode) != stored[order]
        if differs or (order in checks and decoded(record) != list(store.calls(domain, order))):
            raise ReplayMismatch(
                f"{store.path}: episode {domain}:{order} plays differently now than when the "
                f"run was made (by {made_by(manifest)}), so its role calls cannot be made "
                "again; install that version to read them"
            )
    return {o: r for o, r in found.items() if o in wanted}


def calls_of(
    store: RunStore, domain: str, orders: Iterable[int], cache_dir: Path | None = None
) -> dict[int, list[StoredCall]]:
    """Each episode's role calls, in order: stored where the run kept them, played again
    where it did not."""
    orders = list(orders)
    kept = store.kept_calls(domain)
    calls = {o: list(store.calls(domain, o)) for o in orders if o in kept}
    missing = [o for o in orders if o not in kept]
    for order, record in replayed(store, domain, missing, cache_dir).items():
        calls[order] = decoded(record)
    return calls


def decoded(record: EpisodeRecord) -> list[StoredCall]:
    """The calls of a record played again, as the store would hold them."""
    return [
        StoredCall(seq, role, json.loads(inp), json.loads(out))
        for seq, (role, inp, out) in enumerate(record.calls or [])
    ]


def all_calls(
    store: RunStore, cache_dir: Path | None = None
) -> Iterator[tuple[str, int, StoredCall]]:
    """Every role call of the run as (domain, order, call), in episode and call order."""
    by_domain: dict[str, list[int]] = {}
    for row in store.episodes():
        by_domain.setdefault(row["domain"], []).append(row["ord"])
    for domain, orders in by_domain.items():
        calls = calls_of(store, domain, orders, cache_dir)
        for order in orders:
            for call in calls.get(order, []):
                yield domain, order, call
