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
from functools import cached_property

import numpy as np

from recmarket.market.catalogs import Catalogs
from recmarket.streams import Stream, brief


@dataclass(frozen=True)
class EpisodeDraws:
    """The random numbers one episode's retrieval consumes."""

    inclusion: np.ndarray  # (N,) uniforms: forced inclusion fires where < p_hit
    gumbel: np.ndarray  # (N, L) Gumbel variates for the candidate draws
    key: tuple[int, str, int, int]  # (seed, domain, episode, incumbents): for the entry

    @cached_property
    def entry(self) -> int:
        """The incumbent a Platform-Centric user enters: drawn only where it is asked for
        (a user agent's episode never is), from its own stream."""
        seed, domain, episode, incumbents = self.key
        return int(brief(seed, domain, Stream.PLATFORM_ENTRY, episode).integers(incumbents))

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
        gumbel = brief(seed, domain, Stream.RETRIEVAL, episode).gumbel(size=(n_platforms, top_l))
        if width is not None and width > top_l:
            extra = brief(seed, domain, Stream.RETRIEVAL_EXTENSION, episode).gumbel(
                size=(n_platforms, width - top_l)
            )
            gumbel = np.hstack([gumbel, extra])
        inclusion = brief(seed, domain, Stream.FORCED_INCLUSION, episode).random(n_platforms)
        if entrants:
            late = brief(seed, domain, Stream.ENTRANT_RETRIEVAL, episode)
            gumbel = np.vstack([gumbel, late.gumbel(size=(entrants, gumbel.shape[1]))])
            late_inclusion = brief(seed, domain, Stream.ENTRANT_INCLUSION, episode)
            inclusion = np.concatenate([inclusion, late_inclusion.random(entrants)])
        return cls(inclusion, gumbel, (seed, domain, episode, n_platforms))


def forced_inclusion(carries_target: np.ndarray, inclusion: np.ndarray, p_hit: float) -> np.ndarray:
    """Per platform: does controlled inclusion make the target its candidate?"""
    return carries_target & (inclusion < p_hit)


@dataclass(frozen=True)
class PlatformRetrieval:
    """One platform's retrieval for a request: the candidate it submits and whether the
    target was forced in."""

    platform: int
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


def ranked_heads(
    scores: np.ndarray, membership: np.ndarray, size: int, shortlist: int
) -> tuple[np.ndarray, np.ndarray]:
    """For each need's scores (a row of ``scores``): the best ``shortlist`` items overall,
    best first (ties: lower index first), and each one's place in every platform's
    top-``size`` (-1 where the platform does not carry it or has ``size`` better items).
    One partition of the universe serves all N platforms; a platform's top-L read off it is
    exact whenever it has at least L members in the shortlist (or fewer members in all),
    which ``Retriever.user_agent_pools`` checks. Each row is ranked on its own, so a need's
    head does not depend on the needs it is ranked with."""
    needs, n = scores.shape
    if n <= shortlist:
        head = np.broadcast_to(np.arange(n), (needs, n))
    else:  # the partition's members, in index order, then stably by score
        head = np.sort(np.argpartition(-scores, shortlist - 1, axis=1)[:, :shortlist], axis=1)
    order = np.argsort(-np.take_along_axis(scores, head, axis=1), axis=1, kind="stable")
    head = np.take_along_axis(head, order, axis=1)
    carried = membership[head]  # (needs, shortlist, platforms)
    place = np.cumsum(carried, axis=1, dtype=np.int32) - 1
    place[~carried | (place >= size)] = -1
    return head, place


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
        self.sizes = [len(m) for m in self.members]
        # The shortlist every platform's top L is read from: four times the share of it
        # that the smallest catalog would hold of L items by chance, so that the exact scan
        # of a whole catalog (its fallback) is rare.
        smallest = max(min(self.sizes, default=1), 1)
        self.shortlist = max(64, 4 * top_l * len(self.active) // smallest)
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
        agent queries (``user_agent_pools`` of one need)."""
        present = self.catalogs.n_platforms if present is None else present
        return self.user_agent_pools(scores[None], [target], [draws], [present])[0]

    def user_agent_pools(
        self,
        scores: np.ndarray,
        targets: list[int],
        draws: list[EpisodeDraws],
        present: list[int],
    ) -> list[list[PlatformRetrieval]]:
        """The pools of many needs (rows of ``scores``), each of the platforms present at
        its request. Every platform's Gumbel-max draw over its top L is taken at once for
        all of them, in arrays over each need's shortlist of the universe
        (``ranked_heads``); a platform the shortlist holds too few of is scanned whole.
        A pool is the same whichever needs it is drawn with."""
        membership = self.catalogs.membership
        platforms = membership.shape[1]
        head, place = ranked_heads(scores, membership, self.top_l, self.shortlist)
        gumbel = np.stack([d.gumbel[:platforms] for d in draws])  # (needs, platforms, width)
        needs = np.arange(len(draws))[:, None, None]
        drawn = gumbel[needs, np.arange(platforms), np.maximum(place, 0)]
        head_scores = np.take_along_axis(scores, head, axis=1)[:, :, None]
        held = place >= 0
        keys = np.where(held, head_scores / self.tau + drawn, -np.inf)
        found = np.count_nonzero(held, axis=1)
        candidates = np.where(found > 0, np.take_along_axis(head, keys.argmax(axis=1), axis=1), -1)
        # The shortlist held too few of a platform's top L: scan the whole catalog.
        for e, p in zip(*np.nonzero(found < np.minimum(self.top_l, self.sizes)), strict=True):
            items, item_scores = top_l(scores[e], self.members[p], self.top_l)
            keyed = item_scores / self.tau + draws[e].gumbel[p, : len(items)]
            candidates[e, p] = items[np.argmax(keyed)]
        inclusion = np.stack([d.inclusion[:platforms] for d in draws])
        forced = forced_inclusion(membership[targets], inclusion, self.p_hit)
        candidates = np.where(forced, np.asarray(targets)[:, None], candidates)
        return [
            [
                PlatformRetrieval(p, candidate, fired)
                for p, candidate, fired in zip(range(shown), row, fired_row, strict=False)
            ]
            for shown, row, fired_row in zip(
                present, candidates.tolist(), forced.tolist(), strict=True
            )
        ]

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
