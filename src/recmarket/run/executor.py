"""Executing a cell as independent work units, in this process or on a Ray cluster.

The unit of work is what can run alone: one domain's reputation stream of one cell. Under
LocalRep a stream is one history set (Local-12: a simulated user; Style-6: a profile;
Shared-1: the whole domain) and its episodes run in order; without reputation every
episode stands alone and episodes are grouped into chunks. A unit carries the cell's
configuration, the orders of its pending episodes and the stream's stored reputation
records (for resume), and returns its episodes as plain records that the driver commits to
the run store. Adaptive platforms couple every stream of a domain, so then a domain is one
unit, played in schedule order with the stored lessons. Since every draw is keyed by the
episode and learners update per period, the records equal those of the in-process runner,
wherever the units run.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from recmarket.agents.rules import offline_agents
from recmarket.config import RunConfig
from recmarket.embedding import Embedder, load_embedder
from recmarket.run.runner import (
    PreparedDomain,
    StoredRecord,
    as_record,
    cell_round,
    prepare,
    restore_reputation,
    restore_strategies,
    stored_records,
    streams,
)
from recmarket.run.store import EpisodeRecord, RunStore

CHUNK = 60  # independent episodes per unit when there is no reputation


@dataclass(frozen=True)
class WorkUnit:
    config_json: str
    domain: str
    orders: tuple[int, ...]  # pending episodes, in schedule order
    history: tuple[StoredRecord, ...]  # the stream's stored reputation records
    cache_dir: str
    lessons: tuple[dict[str, Any], ...] = ()  # stored {ord, strategy} of adaptive cells


# Per worker process: embedders by their settings, prepared domains by cell and domain.
_EMBEDDERS: dict[str, Embedder] = {}
_PREPARED: dict[tuple[str, str], PreparedDomain] = {}


def play_unit(unit: WorkUnit) -> list[EpisodeRecord]:
    cfg = RunConfig.model_validate_json(unit.config_json)
    settings = cfg.embedder.model_dump_json()
    if settings not in _EMBEDDERS:
        _EMBEDDERS[settings] = load_embedder(cfg.embedder)
    embedder = _EMBEDDERS[settings]
    key = (cfg.digest(), unit.domain)
    if key not in _PREPARED:
        _PREPARED[key] = prepare(cfg, unit.domain, embedder, Path(unit.cache_dir))
    prepared = _PREPARED[key]
    by_order = {r.order: r for r in prepared.requests}
    round_ = cell_round(cfg, prepared, offline_agents(embedder, cfg.agents), embedder)
    if round_.memory is not None:
        restore_reputation(round_.memory, prepared.requests, unit.history)
    if round_.strategies is not None:
        restore_strategies(round_.strategies, unit.lessons)

    async def play_all() -> list[EpisodeRecord]:
        return [as_record(await round_.play(by_order[o])) for o in unit.orders]

    return asyncio.run(play_all())


def plan_units(cfg: RunConfig, store: RunStore, cache_dir: Path) -> list[WorkUnit]:
    """The pending work of a cell, one unit per reputation stream (or chunk of episodes)."""
    units = []
    config_json = cfg.model_dump_json()
    embedder = load_embedder(cfg.embedder)
    for domain in cfg.domains:
        prepared = prepare(cfg, domain, embedder, cache_dir)
        stored = {r["ord"]: r for r in store.episodes(domain)}
        if cfg.market.adaptive:  # the whole domain, in schedule order
            pending = tuple(r.order for r in prepared.requests if r.order not in stored)
            lessons = tuple({"ord": o, "strategy": r["strategy"]} for o, r in stored.items())
            history = tuple(stored_records(list(stored.values())))
            if pending:
                units.append(
                    WorkUnit(config_json, domain, pending, history, str(cache_dir), lessons)
                )
            continue
        for stream in streams(cfg, prepared.requests):
            pending = tuple(r.order for r in stream if r.order not in stored)
            history = tuple(stored_records([stored[r.order] for r in stream if r.order in stored]))
            if pending:
                units.append(WorkUnit(config_json, domain, pending, history, str(cache_dir)))
    if cfg.condition != "local-rep" and not cfg.market.adaptive:  # singletons: regroup
        units = [
            WorkUnit(
                config_json, u[0].domain, tuple(o for x in u for o in x.orders), (), str(cache_dir)
            )
            for u in (units[i : i + CHUNK] for i in range(0, len(units), CHUNK))
        ]
    return units


class Executor(Protocol):
    def map(self, units: list[WorkUnit]) -> Iterator[list[EpisodeRecord]]: ...


class LocalExecutor:
    """Units one after the other in this process."""

    def map(self, units: list[WorkUnit]) -> Iterator[list[EpisodeRecord]]:
        return (play_unit(u) for u in units)


class RayExecutor:
    """Units as Ray tasks on a local or existing cluster; results as they complete."""

    def __init__(self, address: str | None = None) -> None:
        try:
            import ray
        except ImportError as exc:
            raise RuntimeError(
                "--executor ray needs the 'ray' extra: pip install 'recmarket[ray]'"
            ) from exc
        self.ray: Any = ray
        if not ray.is_initialized():
            ray.init(address=address, include_dashboard=False, log_to_driver=False)
        self.task = ray.remote(play_unit)

    def map(self, units: list[WorkUnit]) -> Iterator[list[EpisodeRecord]]:
        pending = [self.task.remote(u) for u in units]
        while pending:
            ready, pending = self.ray.wait(pending, num_returns=1)
            yield from (self.ray.get(r) for r in ready)


def run_distributed(
    cfg: RunConfig,
    out_dir: Path,
    executor: Executor,
    *,
    cache_dir: Path | None = None,
    progress: Any = None,
) -> RunStore:
    """Run (or resume) a cell through an executor; the driver is the store's only writer."""
    from recmarket.embedding.cache import default_cache_dir

    if cfg.llm is not None and cfg.llm.models:
        raise RuntimeError(
            "work units run the offline backend; run LLM cells with the local "
            "executor (their calls are concurrent already)"
        )
    store = RunStore.open(out_dir, cfg)
    cache = cache_dir or default_cache_dir()
    total = cfg.episodes.requests * len(cfg.domains)
    done = sum(len(store.done(d)) for d in cfg.domains)
    for records in executor.map(plan_units(cfg, store, cache)):
        for record in records:
            store.write_episode(record)
        done += len(records)
        if progress:
            progress(records[0].identity["domain"] if records else "", done, total)
    return store
