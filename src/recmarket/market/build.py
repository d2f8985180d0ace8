"""Assembling one domain's market: requests, item vectors, catalogs, policies, retrieval.

Catalogs depend on the market configuration and on the domain's targets (which the cap
protects); item vectors and requests do not, so one loaded domain serves every treatment
cell that shares them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from recmarket.data.domain import Domain
from recmarket.data.episodes import Request
from recmarket.data.reviews import id_hash
from recmarket.embedding import Embedder
from recmarket.embedding.cache import embed_items
from recmarket.market.catalogs import Catalogs, assign_catalogs
from recmarket.market.policies import platform_ids
from recmarket.market.retrieval import EpisodeDraws, Retriever, forced_inclusion
from recmarket.market.settings import MarketConfig


@dataclass(frozen=True)
class Seat:
    """A platform of the market: its id, its platform strategy (``market.presentation``),
    the policy it was given (its composition's, or a fixed entrant's; None for an adaptive
    entrant) and the number of rounds played before it enters (0 for the incumbents)."""

    platform_id: str
    strategy: str
    policy: str | None
    after_rounds: int = 0


def seats(cfg: MarketConfig) -> tuple[Seat, ...]:
    """The incumbents P1..PN, then the late entrants in order of entry."""
    incumbents = [
        Seat(i, cfg.platform_strategy, p)
        for i, p in zip(platform_ids(cfg.n_platforms), cfg.policies, strict=True)
    ]
    late = [
        Seat(i, e.kind, e.policy, e.after_rounds)
        for i, e in zip(cfg.entrant_ids, cfg.entrants, strict=True)
    ]
    return (*incumbents, *late)


@dataclass(frozen=True)
class DomainMarket:
    domain: Domain
    requests: list[Request]
    config: MarketConfig
    catalogs: Catalogs
    retriever: Retriever
    seed: int

    seats: tuple[Seat, ...]

    def present(self, request: Request) -> int:
        """How many platforms (a prefix of the seats) are in the market at this request."""
        return sum(seat.after_rounds <= request.order for seat in self.seats)

    def draws(self, request: Request) -> EpisodeDraws:
        cfg = self.config
        return EpisodeDraws.draw(
            self.seed,
            self.domain.name,
            request_key(request),
            cfg.n_platforms,
            cfg.top_l,
            width=max(cfg.top_l, cfg.j),
            entrants=len(cfg.entrants),
        )


def request_key(request: Request) -> int:
    """The stream unit of a request: a stable hash of its episode id, so the same episode
    gets the same draws whatever R is and wherever it sits in the schedule."""
    return id_hash(request.episode.episode_id) & 0x7FFF_FFFF_FFFF_FFFF


def item_vectors(domain: Domain, embedder: Embedder, cache_dir: Path | None) -> np.ndarray:
    return embed_items(embedder, [item.evidence.text() for item in domain.items], cache_dir)


def build_market(
    domain: Domain, requests: list[Request], vectors: np.ndarray, cfg: MarketConfig, seed: int
) -> DomainMarket:
    targets = np.array([r.episode.target.item_index for r in requests], dtype=np.int64)
    catalogs = assign_catalogs(
        len(domain.items),
        targets,
        n_platforms=cfg.n_platforms,
        rho=cfg.rho,
        cap=cfg.catalog_cap,
        seed=seed,
        domain=domain.name,
        rotation=cfg.rotation,
        entrants=len(cfg.entrants),
    )
    retriever = Retriever(vectors, catalogs, top_l=cfg.top_l, tau=cfg.tau, p_hit=cfg.p_hit)
    return DomainMarket(domain, requests, cfg, catalogs, retriever, seed, seats(cfg))


@dataclass(frozen=True)
class MarketAccess:
    """Forced-inclusion access on a real market's requests (the A.2 quantity, empirical)."""

    mean_target_copies: float
    platform_centric: float
    user_agent: float


def market_access(market: DomainMarket) -> MarketAccess:
    copies, pc, ua = [], [], []
    for request in market.requests:
        carriers = market.catalogs.carriers(request.episode.target.item_index)
        draws = market.draws(request)
        forced = forced_inclusion(carriers, draws.inclusion, market.config.p_hit)
        copies.append(int(carriers.sum()))
        pc.append(bool(forced[draws.entry]))
        ua.append(bool(forced.any()))
    return MarketAccess(float(np.mean(copies)), float(np.mean(pc)), float(np.mean(ua)))
