"""Platform retrieval with controlled target inclusion (Sections 3.2, 4.1; Appendix A.2).

Each platform scores its own catalog by exact cosine similarity to the structured need,
keeps its top L, and draws one candidate by Gumbel-max over score / tau. Target inclusion
is controlled: for each platform whose catalog carries the target, with probability p_hit
the platform's candidate *is* the target (forced inclusion); otherwise the candidate is the
Gumbel draw, which may still be the target. The target is never added to a catalog that
lacks it. Under Platform-Centric the entered platform shows J items: the first J of its
Gumbel ordering over the top max(L, J), where forced inclusion puts the target in place of the
last of them if it is not already there; they are shown in descending score order.

Per episode the draws have fixed shapes (N uniforms for inclusion, N x L Gumbel variates,
one entry draw) from streams keyed by the episode, so every treatment cell that shares a
request shares its retrieval exactly.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from recmarket.market.catalogs import Catalogs
from recmarket.streams import Stream, rng


@dataclass(frozen=True)
class EpisodeDraws:
    """The random numbers one episode's retrieval consumes."""

    inclusion: np.ndarray  # (N,) uniforms: forced inclusion fires where < p_hit
    gumbel: np.ndarray  # (N, L) Gumbel variates for the candidate draws
    entry: int  # the platform a Platform-Centric user enters

    @classmethod
    def draw(
        cls,
        seed: int,
        domain: str,
        episode: int,
        n_platforms: int,
        top_l: int,
        width: int | None = None,
        entrants: int = 0,
    ) -> EpisodeDraws:
        """``width`` > ``top_l`` extends each platform's Gumbel row from a separate stream
        (a Platform-Centric J above L), so the first L columns never depend on J. Late
        entrants' rows come from their own streams, so the incumbents' never depend on
        them."""
        gumbel = rng(seed, domain, Stream.RETRIEVAL, episode).gumbel(size=(n_platforms, top_l))
        if width is not None and width > top_l:
            extra = rng(seed, domain, Stream.RETRIEVAL_EXTENSION, episode).gumbel(
                size=(n_platforms, width - top_l)
            )
            gumbel = np.hstack([gumbel, extra])
        inclusion = rng(seed, domain, Stream.FORCED_INCLUSION, episode).random(n_platforms)
        if entrants:
            late = rng(seed, domain, Stream.ENTRANT_RETRIEVAL, episode)
            gumbel = np.vstack([gumbel, late.gumbel(size=(entrants, gumbel.shape[1]))])
            late_inclusion = rng(seed, domain, Stream.ENTRANT_INCLUSION, episode)
            inclusion = np.concatenate([inclusion, late_inclusion.random(entrants)])
        return cls(
            inclusion=inclusion,
            gumbel=gumbel,
            entry=int(rng(seed, domain, Stream.PLATFORM_ENTRY, episode).integers(n_platforms)),
        )


def forced_inclusion(carries_target: np.ndarray, inclusion: np.ndarray, p_hit: float) -> np.ndarray:
    """Per platform: does controlled inclusion make the target its candidate?"""
    return carries_target & (inclusion < p_hit)


@dataclass(frozen=True)
class PlatformRetrieval:
    platform: int
    top_items: np.ndarray  # the exact top-L item indices, best first
    top_scores: np.ndarray
    candidate: int  # -1 when the catalog is empty
    forced: bool


def top_l(scores: np.ndarray, members: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Exact top-``size`` of ``members`` by score, best first (ties: lower item index first)."""
    s = scores[members]
    if len(members) > size:
        part = np.argpartition(-s, size - 1)[:size]
        members, s = members[part], s[part]
    order = np.lexsort((members, -s))
    return members[order], s[order]


def top_l_per_platform(
    scores: np.ndarray,
    membership: np.ndarray,
    members: list[np.ndarray],
    size: int,
    shortlist: int = 1024,
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Every platform's exact top-``size``, computed through one global shortlist.

    The best ``shortlist`` items overall are sorted once; a platform's top-L is its first L
    members in that order. That is exact whenever the platform has at least L members in
    the shortlist (or fewer members in all); otherwise it falls back to scanning the
    platform's whole catalog. One partition of the universe replaces N of them.
    """
    n = len(scores)
    head = np.arange(n) if n <= shortlist else np.argpartition(-scores, shortlist - 1)[:shortlist]
    head = head[np.lexsort((head, -scores[head]))]
    carried = membership[head]
    take = carried & (np.cumsum(carried, axis=0) <= size)
    lists = []
    for p in range(membership.shape[1]):
        chosen = take[:, p]
        if chosen.sum() < min(size, len(members[p])):
            lists.append(top_l(scores, members[p], size))
        else:
            items = head[chosen]
            lists.append((items, scores[items]))
    return lists


class Retriever:
    """Retrieval over one domain's catalogs with unit-normalised item vectors."""

    def __init__(
        self, item_vectors: np.ndarray, catalogs: Catalogs, *, top_l: int, tau: float, p_hit: float
    ) -> None:
        # Only items some catalog carries are ever scored (with caps, a small part of a
        # real universe). Stored transposed: one need is then a contiguous gemv, about a
        # fifth faster than with row-major items (the product is memory-bound).
        self.catalogs = catalogs
        self.active = np.flatnonzero(catalogs.membership.any(axis=1))
        vectors = np.asarray(item_vectors, np.float32)
        self.n_items = len(vectors)
        self.item_vectors_t = np.ascontiguousarray(vectors[self.active].T)
        self.members = [catalogs.members(p) for p in range(catalogs.n_platforms)]
        self.top_l, self.tau, self.p_hit = top_l, tau, p_hit

    def scores(self, need_vectors: np.ndarray) -> np.ndarray:
        """Cosine scores of every item for one need (d,) or a batch of needs (b, d); items
        in no catalog score -inf."""
        local = need_vectors.astype(np.float32, copy=False) @ self.item_vectors_t
        if len(self.active) == self.n_items:
            return local
        full = np.full((*local.shape[:-1], self.n_items), -np.inf, dtype=np.float32)
        full[..., self.active] = local
        return full

    def _forced(self, p: int, target: int, draws: EpisodeDraws) -> bool:
        return bool(
            forced_inclusion(self.catalogs.membership[target, p], draws.inclusion[p], self.p_hit)
        )

    def user_agent_pool(
        self, scores: np.ndarray, target: int, draws: EpisodeDraws, present: int | None = None
    ) -> list[PlatformRetrieval]:
        """One candidate per platform among the first ``present`` (all by default; late
        entrants are last, so those not yet in the market are left out): the pool a user
        agent queries."""
        lists = top_l_per_platform(scores, self.catalogs.membership, self.members, self.top_l)
        pool = []
        for p, (items, item_scores) in enumerate(lists[:present]):
            if not len(items):
                pool.append(PlatformRetrieval(p, items, item_scores, -1, False))
                continue
            keys = item_scores / self.tau + draws.gumbel[p, : len(items)]
            forced = self._forced(p, target, draws)
            candidate = target if forced else int(items[np.argmax(keys)])
            pool.append(PlatformRetrieval(p, items, item_scores, candidate, forced))
        return pool

    def platform_centric(
        self, scores: np.ndarray, target: int, draws: EpisodeDraws, j: int
    ) -> tuple[int, list[int], bool]:
        """The entered platform, its J shown items (descending score) and whether forced
        inclusion fired there."""
        p = draws.entry
        items, item_scores = top_l(scores, self.members[p], max(self.top_l, j))
        keys = item_scores / self.tau + draws.gumbel[p, : len(items)]
        shown = [int(i) for i in items[np.argsort(-keys, kind="stable")[:j]]]
        forced = self._forced(p, target, draws)
        if forced and target not in shown:
            shown[-1] = target
        shown.sort(key=lambda i: (-float(scores[i]), i))
        return p, shown, forced
