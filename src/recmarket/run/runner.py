"""Running one treatment cell: every domain's requests through the round protocol, each
finished episode committed to the run store, and a restart resuming where it stopped.

Reputation is the only state that crosses episodes. On resume it is rebuilt by replaying
the stored records in schedule order, and since every draw is keyed by the episode rather
than by call order, the resumed episodes are exactly those an uninterrupted run makes.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from recmarket.agents.contracts import ReputationRecord
from recmarket.agents.roles import Agents
from recmarket.agents.rules import offline_agents
from recmarket.config import RunConfig
from recmarket.data import BUNDLED_DATA_DIR
from recmarket.data.domain import domain_files, load_domain
from recmarket.data.episodes import Request, sample_requests
from recmarket.embedding import Embedder, load_embedder
from recmarket.embedding.cache import default_cache_dir
from recmarket.market.build import DomainMarket, build_market, item_vectors
from recmarket.market.metrics import episode_metrics
from recmarket.market.outcome import Outcome
from recmarket.market.protocol import Round
from recmarket.market.reputation import ReputationMemory
from recmarket.run.store import RunStore

# progress(domain, episodes done in this run so far, episodes in the whole run)
Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class PreparedDomain:
    market: DomainMarket
    requests: list[Request]


def prepare(
    cfg: RunConfig, name: str, embedder: Embedder, cache_dir: Path | None
) -> PreparedDomain:
    data = cfg.data or BUNDLED_DATA_DIR
    domain = load_domain(domain_files(data, name), min_interactions=cfg.episodes.min_interactions)
    requests = sample_requests(domain, cfg.episodes, cfg.seed)
    vectors = item_vectors(domain, embedder, cache_dir)
    return PreparedDomain(build_market(domain, requests, vectors, cfg.market, cfg.seed), requests)


def replay_reputation(
    store: RunStore, domain: str, requests: list[Request], memory: ReputationMemory
) -> None:
    by_order = {r.order: r for r in requests}
    for row in store.episodes(domain):
        if row["rep_label"] is not None:
            memory.append(
                by_order[row["ord"]],
                row["rep_platform"],
                ReputationRecord(claim_reliability=row["rep_label"], note=row["rep_note"]),
            )


STAGE1_BATCH = 256  # requests whose stage 1 is prepared, and needs embedded, together


def record(store: RunStore, outcome: Outcome) -> None:
    """Commit one finished episode: identity, metrics, reputation record, every call."""
    request = outcome.request
    identity = {
        "domain": request.episode.domain,
        "ord": request.order,
        "episode_id": request.episode.episode_id,
        "sim_user": request.sim_user,
        "round": request.round,
        "profile": request.profile,
        "condition": outcome.condition,
    }
    bought = outcome.purchased if outcome.record else None
    store.write_episode(
        identity,
        episode_metrics(outcome),
        (bought.platform_id if bought else None, outcome.record.note if outcome.record else None),
        [(c.role, c.input, c.output) for c in outcome.calls],
    )


async def play_domain(
    cfg: RunConfig,
    store: RunStore,
    prepared: PreparedDomain,
    agents: Agents,
    embedder: Embedder,
    tick: Callable[[], None],
) -> None:
    """Play the domain's unfinished episodes in schedule order, committing each one."""
    name = prepared.market.domain.name
    memory = None
    if cfg.condition == "local-rep":
        memory = ReputationMemory(cfg.market.memory_window, cfg.reputation_scope)
        replay_reputation(store, name, prepared.requests, memory)
    done = store.done(name)
    for _ in done:
        tick()
    round_ = Round(
        prepared.market, agents, embedder, cfg.condition, memory, cfg.market.long_term_weight
    )
    pending = [r for r in prepared.requests if r.order not in done]
    for start in range(0, len(pending), STAGE1_BATCH):
        batch = pending[start : start + STAGE1_BATCH]
        stage1 = [await round_.stage1(r) for r in batch]
        vectors = round_.need_vectors([s.need for s in stage1])
        for request, first, vector in zip(batch, stage1, vectors, strict=True):
            record(store, await round_.play(request, first, vector))
            tick()


def run(
    cfg: RunConfig,
    out_dir: Path,
    *,
    agents: Agents | None = None,
    cache_dir: Path | None = None,
    progress: Progress | None = None,
) -> RunStore:
    """Run (or resume) a cell into ``out_dir``; returns the open store."""
    store = RunStore.open(out_dir, cfg)
    agents = agents or offline_agents(cfg.agents)
    embedder = load_embedder(cfg.embedder)
    cache = cache_dir or default_cache_dir()
    total = cfg.episodes.requests * len(cfg.domains)
    count = 0
    for name in cfg.domains:
        prepared = prepare(cfg, name, embedder, cache)

        def tick(name: str = name) -> None:
            nonlocal count
            count += 1
            if progress:
                progress(name, count, total)

        asyncio.run(play_domain(cfg, store, prepared, agents, embedder, tick))
    return store
