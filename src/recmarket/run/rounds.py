"""A cell's round on one domain, made ready to play: the domain loaded, its items embedded
and its market built (``prepare``), and the round protocol with an empty memory
(``cell_round``) or with the memory and learners its stored episodes left
(``restored_round``), and the streams of requests that must run in order.
"""

from __future__ import annotations

import gc
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from recmarket.agents.judgement import Judge
from recmarket.agents.roles import Agents
from recmarket.agents.rules.lexicon import claim_distance
from recmarket.catalogue.conditions import condition
from recmarket.config import RunConfig
from recmarket.data.domain import Domain
from recmarket.data.episodes import Request
from recmarket.data.sources import data_directory
from recmarket.embedding import Embedder
from recmarket.embedding.cache import default_cache_dir, embed_items
from recmarket.embedding.similarity import similarity_for, visible_text
from recmarket.market.build import DomainMarket, build_market, item_vectors
from recmarket.market.protocol import Round
from recmarket.market.reputation import ReputationMemory, scope_key
from recmarket.run.loaded import requests_for
from recmarket.run.phases import Phases
from recmarket.run.records import restore_reputation, restore_strategies, stored_records


@dataclass(frozen=True)
class PreparedDomain:
    """A domain's market and the requests a run plays in it."""

    market: DomainMarket
    requests: list[Request]


def prepare(
    cfg: RunConfig,
    name: str,
    embedder: Embedder,
    cache_dir: Path | None,
    strict: bool = False,
    phases: Phases | None = None,
) -> PreparedDomain:
    """A domain loaded and its requests sampled (once per process: see run/loaded.py), its
    items embedded, its market built; each step's time added to ``phases``."""
    phases = phases or Phases()
    data = data_directory(cfg.data, cache_dir or default_cache_dir())
    with phases.timed("domain data"):
        domain, requests = requests_for(data, name, cfg.episodes, cfg.seed, strict)
    with phases.timed("embedding"):
        vectors = item_vectors(domain, embedder, cache_dir)
        warm_similarity(domain, embedder, vectors, cache_dir)
    with phases.timed("market"):
        market = build_market(domain, requests, vectors, cfg.market, cfg.seed)
    prepared = PreparedDomain(market, requests)
    # The domain, its market and the caches live as long as the run: exempt them from the
    # cyclic collector's full passes, which otherwise rescan them every few hundred
    # episodes (a fifth of an offline run's time). Later objects are collected as usual.
    gc.freeze()
    return prepared


def warm_similarity(
    domain: Domain, embedder: Embedder, vectors: np.ndarray, cache_dir: Path | None = None
) -> None:
    """Fill the process's similarity cache with the texts the offline roles and the
    target_best_fit measure read about items: the retrieval vectors of the evidence texts,
    and the titles and visible fields, embedded in one batch (far cheaper than one by one)
    and kept in the embedding cache beside the items' vectors, so that each worker of a
    reproduce reads them rather than encoding them again."""
    similarity = similarity_for(embedder)
    evidence = [item.evidence for item in domain.items]
    similarity.remember([e.text() for e in evidence], vectors)
    shown = [e.title for e in evidence] + [visible_text(e.title, e.category) for e in evidence]
    new = similarity.unknown(shown)
    if new:
        similarity.remember(new, embed_items(embedder, new, cache_dir))


def cell_round(
    cfg: RunConfig, prepared: PreparedDomain, agents: Agents, embedder: Embedder
) -> Round:
    """The round protocol of a cell on a domain, with an empty memory under LocalRep and
    untaught learners for adaptive platforms."""
    memory = None
    if condition(cfg.condition).reputation:
        market = cfg.market
        memory = ReputationMemory(
            market.memory_window,
            cfg.reputation_scope,
            market.reputation_in_use,
            market.proof_of_purchase,
        )
    return Round(
        prepared.market,
        agents,
        embedder,
        cfg.condition,
        memory,
        Judge.of(embedder, cfg.agents.scale),
        cfg.draws,
        cfg.record_choices,
        claim_distance,
    )


def streams(cfg: RunConfig, requests: list[Request]) -> list[list[Request]]:
    """Requests that must run in order: one reputation history set each under LocalRep
    (a simulated user, a profile, or everybody); otherwise every episode stands alone."""
    if not condition(cfg.condition).reputation:
        return [[r] for r in requests]
    grouped: dict[str, list[Request]] = {}
    for r in requests:
        grouped.setdefault(scope_key(r, cfg.reputation_scope), []).append(r)
    return list(grouped.values())


def batchable(cfg: RunConfig) -> bool:
    """Whether no episode of the cell waits on another's outcome (no reputation memory, no
    platform that learns or reacts): its calls of a stage can all go as one batch job."""
    return not condition(cfg.condition).reputation and not cfg.market.adaptive


def restored_round(
    cfg: RunConfig,
    prepared: PreparedDomain,
    agents: Agents,
    embedder: Embedder,
    stored: Iterable[dict[str, Any]],
) -> Round:
    """The round of a domain with the memory and learners its stored episodes left (their
    rows, or the columns ``ord``, ``rep_*`` and ``lessons`` of them, in schedule order)."""
    stored = list(stored)
    round_ = cell_round(cfg, prepared, agents, embedder)
    if round_.memory is not None:
        restore_reputation(round_.memory, prepared.requests, stored_records(stored))
    if round_.strategies.adaptive:
        restore_strategies(round_.strategies, stored)
    return round_
