"""Assembling one domain's market: requests, item vectors, catalogs, policies, retrieval.

Catalogs depend on the market configuration and on the domain's targets (which the cap
protects); item vectors and requests do not, so one loaded domain serves every treatment
cell that shares them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

import numpy as np

from recmarket.catalogue.attacks import AttackSetting, Forgery
from recmarket.catalogue.listing_copy import CopySetting
from recmarket.data.domain import Domain
from recmarket.data.episodes import Request
from recmarket.data.reviews import id_hash
from recmarket.embedding import Embedder
from recmarket.embedding.cache import embed_items
from recmarket.market.catalogs import Catalogs, assign_catalogs
from recmarket.market.compositions import platform_ids
from recmarket.market.retrieval import EpisodeDraws, Retriever, forced_inclusion
from recmarket.market.settings import MarketConfig


@dataclass(frozen=True)
class Seat:
    """A platform of the market: its id, its platform strategy (``market.platform_strategy``),
    the policy it was given (its composition's, or a fixed entrant's; None for an adaptive
    entrant), the number of rounds played before it enters (0 for the incumbents), the
    attack it plays against the records, if any (``market.attacks``), the seat that owns it
    (itself, unless it is a Sybil copy) and how it rewrites its listings, if it does
    (``market.copy``; a Sybil copy rewrites as its owner)."""

    platform_id: str
    strategy: str
    policy: str | None
    after_rounds: int = 0
    attack: AttackSetting | None = None
    owner: str = ""
    copy: CopySetting | None = None

    @property
    def owned_by(self) -> str:
        """Who owns the seat: a Sybil's owner, else the seat itself."""
        return self.owner or self.platform_id


def seats(cfg: MarketConfig) -> tuple[Seat, ...]:
    """The incumbents P1..PN, then the Sybil owners' copies (each with its owner's policy
    and attack) or the late entrants in order of entry."""
    ids = platform_ids(cfg.n_platforms + cfg.added_seats)
    incumbents = [
        Seat(
            i,
            cfg.platform_strategy,
            p,
            attack=cfg.attacks.get(i),
            copy=setting if (setting := cfg.listing_copy.get(i)) and setting.rewrites else None,
        )
        for i, p in zip(ids, cfg.policies, strict=False)
    ]
    copies = [
        replace(owner, owner=owner.platform_id)
        for owner in incumbents
        if owner.attack is not None
        for _ in range(owner.attack.made.copies(owner.attack.built()))
    ]
    copies = [
        replace(c, platform_id=i) for c, i in zip(copies, ids[cfg.n_platforms :], strict=False)
    ]
    late = [
        Seat(i, e.kind, e.policy, e.after_rounds)
        for i, e in zip(cfg.entrant_ids, cfg.entrants, strict=True)
    ]
    return (*incumbents, *copies, *late)


@dataclass(frozen=True)
class DomainMarket:
    """One domain's market, built once per run: its requests, settings, catalogs, item
    vectors and seed."""

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

    def forgers(self) -> list[tuple[int, Forgery]]:
        """The seats that write fake records (owners only, not their Sybil copies)."""
        found = []
        for index, seat in enumerate(self.seats):
            if seat.attack is not None and not seat.owner:
                forgery = seat.attack.made.forgery(seat.attack.built())
                if forgery is not None:
                    found.append((index, forgery))
        return found

    def draws(self, request: Request) -> EpisodeDraws:
        """The episode's keyed draws (retrieval, shuffles, inclusion) for ``request``."""
        cfg = self.config
        return EpisodeDraws.draw(
            self.seed,
            self.domain.name,
            request_key(request),
            cfg.n_platforms,
            cfg.top_l,
            width=max(cfg.top_l, cfg.j),
            entrants=cfg.added_seats,
        )


def request_key(request: Request) -> int:
    """The stream unit of a request: a stable hash of its episode id, so the same episode
    gets the same draws whatever R is and wherever it sits in the schedule."""
    return _episode_key(request.episode.episode_id)


@lru_cache(maxsize=65536)
def _episode_key(episode_id: str) -> int:
    # Asked for by each draw of an episode (retrieval, every role call, every adaptive
    # platform's choice): hashed once.
    return id_hash(episode_id) & 0x7FFF_FFFF_FFFF_FFFF


def item_vectors(domain: Domain, embedder: Embedder, cache_dir: Path | None) -> np.ndarray:
    """The domain's item vectors, from the cache where it has them."""
    return embed_items(embedder, [item.evidence.text() for item in domain.items], cache_dir)


def build_market(
    domain: Domain, requests: list[Request], vectors: np.ndarray, cfg: MarketConfig, seed: int
) -> DomainMarket:
    """The domain's market: catalogs assigned (the targets placed as the settings say) and
    the request-independent parts ready."""
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
    roster = seats(cfg)
    copies = [platform_ids(cfg.n_platforms).index(s.owner) for s in roster if s.owner]
    if copies:  # a Sybil seat carries its owner's catalog
        catalogs = Catalogs(np.column_stack([catalogs.membership, catalogs.membership[:, copies]]))
    retriever = Retriever(vectors, catalogs, top_l=cfg.top_l, tau=cfg.tau, p_hit=cfg.p_hit)
    return DomainMarket(domain, requests, cfg, catalogs, retriever, seed, roster)


@dataclass(frozen=True)
class MarketAccess:
    """Forced-inclusion access on a real market's requests (the A.2 quantity, empirical)."""

    mean_target_copies: float
    platform_centric: float
    user_agent: float


def market_access(market: DomainMarket) -> MarketAccess:
    """The market's access check: the target's copies and its availability under each
    condition, per request."""
    copies, pc, ua = [], [], []
    for request in market.requests:
        carriers = market.catalogs.carriers(request.episode.target.item_index)
        draws = market.draws(request)
        forced = forced_inclusion(carriers, draws.inclusion, market.config.p_hit)
        copies.append(int(carriers.sum()))
        pc.append(bool(forced[draws.entry]))
        ua.append(bool(forced.any()))
    return MarketAccess(float(np.mean(copies)), float(np.mean(pc)), float(np.mean(ua)))
