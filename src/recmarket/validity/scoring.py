"""The simulated user's roles scored on held-out interactions, beside the baselines a user
model must beat, through the same role contracts the market uses (any backend answers).

Per held-out, and under two protocols (``history``: the request is empty and only the
history can tell the items apart; ``request``: the simulator writes its own request from
the held-out target, as in a market round):
- the user agent ranks the held-out item among its negatives (HR@1, HR@3, NDCG@10, on
  positives: rated POSITIVE_RATING or more), and against one negative (pairwise);
- the decision, shown the held-out item alone, buys it with some probability (its exact
  chance where its backend says it, ``ChoiceChances``, else its one draw): P(buy) by the
  person's rating, and on positives the 1:1 accuracy of buying it and not buying a
  negative.
The baselines rank by the listing's popularity (its rating count) and by closeness to the
centroid of the person's history titles; chance is the analytic value.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

import numpy as np

from recmarket.agents.contracts import (
    CandidateView,
    ChoiceChances,
    DecisionInput,
    HeldOutTarget,
    NeedInput,
    PastInteraction,
    QueryInput,
    ReviewInput,
    RoleFailure,
    ShortlistInput,
    StructuredNeed,
)
from recmarket.agents.roles import Agents
from recmarket.data.domain import Domain
from recmarket.data.episodes import Interaction
from recmarket.data.items import ItemEvidence
from recmarket.embedding.similarity import Similarity, visible_text
from recmarket.profiles import PROFILE_BY_NAME, PROFILE_NAMES, Profile
from recmarket.streams import Stream, call_seed, rng
from recmarket.tasks import gather_or_cancel
from recmarket.validity.heldout import POSITIVE_RATING, HeldOut

T = TypeVar("T")
# (measure, protocol, scorer) -> one held-out's value
Key = tuple[str, str, str]
PROTOCOLS = ("history", "request")


@dataclass(frozen=True)
class Scored:
    """One held-out's values, keyed by (measure, protocol, scorer), and whose they are."""

    person: str
    values: dict[Key, float]
    failures: tuple[str, ...] = ()  # the roles that failed on it, one entry a failure
    # (predicted, real) stars for the rank correlations, by (measure, protocol, scorer)
    pairs: dict[Key, tuple[float, float]] = field(default_factory=dict)


def ranked_values(rank: int) -> dict[str, float]:
    """The top-N measures of the held-out item's 1-based rank among its candidates."""
    return {
        "hr@1": float(rank == 1),
        "hr@3": float(rank <= 3),
        "ndcg@10": 1.0 / math.log2(rank + 1) if rank <= 10 else 0.0,
    }


def chance_values(candidates: int) -> dict[str, float]:
    """The ranking measures' expected values for a ranking drawn at random."""
    ranks = range(1, candidates + 1)
    mean = {m: float(np.mean([ranked_values(r)[m] for r in ranks])) for m in ranked_values(1)}
    return {"pairwise_1to1": 0.5, **mean, "buy_accuracy_1to1": 0.5}


def _past(i: Interaction) -> PastInteraction:
    return PastInteraction(
        title=i.title,
        rating=i.rating,
        review_title=i.review_title,
        review_text=i.review_text,
        store=i.store,
        price=i.price,
    )


def _profile(held: HeldOut, seed: int) -> Profile:
    """A person's profile: drawn per person, as the market deals profiles evenly."""
    gen = rng(seed, held.episode.domain, Stream.VALIDATION, held.key, 1)
    return PROFILE_BY_NAME[PROFILE_NAMES[int(gen.integers(len(PROFILE_NAMES)))]]


@dataclass
class UserScorer:
    """Scores held-outs of one domain with a bundle of role backends and the baselines."""

    agents: Agents
    similarity: Similarity
    domain: Domain
    seed: int

    def evidence(self, item: int) -> ItemEvidence:
        """What a buyer sees of an item of the domain."""
        return self.domain.items[item].evidence

    def _seed(self, held: HeldOut, stream: Stream, *unit: int) -> int:
        return call_seed(self.seed, self.domain.name, stream, held.key, *unit)

    async def request(self, held: HeldOut, profile: Profile) -> str:
        """The simulator's own request for the held-out target."""
        episode = held.episode
        t = episode.target
        query = await self.agents.query(
            QueryInput(
                domain=self.domain.name,
                profile=profile,
                history=tuple(_past(h) for h in episode.history),
                target=HeldOutTarget(**_past(t).model_dump()),
            ),
            self._seed(held, Stream.QUERY),
        )
        return query.query_text

    async def need(self, held: HeldOut, query_text: str, protocol: int) -> StructuredNeed:
        """The user agent's structured need from the history and ``query_text``."""
        inp = NeedInput(
            history=tuple(_past(h) for h in held.episode.history), query_text=query_text
        )
        return await self.agents.need(inp, self._seed(held, Stream.NEED, protocol))

    async def rank(
        self, held: HeldOut, query: str, need: StructuredNeed, items: Sequence[int], unit: int
    ) -> int:
        """The 1-based place the user agent gives the first of ``items`` (shown shuffled)."""
        order = rng(self.seed, self.domain.name, Stream.SHUFFLE, held.key, unit).permutation(
            len(items)
        )
        candidates = [
            CandidateView(
                platform_id=f"P{slot}",
                title=self.evidence(items[i]).title,
                category=self.evidence(items[i]).category,
                explanation="",
            )
            for slot, i in enumerate(order.tolist(), start=1)
        ]
        shortlist = await self.agents.shortlist(
            ShortlistInput.model_validate(
                {"query_text": query, "need": need, "candidates": candidates, "k": len(items)}
            ),
            self._seed(held, Stream.SHORTLIST, unit),
        )
        held_slot = f"P{order.tolist().index(0) + 1}"
        return 1 + [r.platform_id for r in shortlist.ranked].index(held_slot)

    async def buys(
        self, held: HeldOut, query: str, profile: Profile, item: int, unit: int
    ) -> float:
        """The chance the decision buys ``item`` shown alone for the request."""
        evidence = self.evidence(item)
        inp = DecisionInput.model_validate(
            {
                "query_text": query,
                "instruction": profile.instruction,
                "options": [
                    {
                        "option_id": "P1",
                        "rank": 1,
                        "platform_id": "P1",
                        "title": evidence.title,
                        "category": evidence.category,
                        "explanation": "",
                    }
                ],
            }
        )
        if isinstance(self.agents.decide, ChoiceChances):
            return 1.0 - sum(c for answer, c in self.agents.decide.chances(inp) if answer is None)
        decision = await self.agents.decide(inp, self._seed(held, Stream.DECIDE, unit))
        return float(decision.option_id is not None)

    async def review_stars(self, held: HeldOut, query: str, profile: Profile) -> float | None:
        """The stars the review gives the held-out item bought, judged against the
        person's latest earlier purchase they liked (their own words and rating of it as
        the hoped-for outcome) with their history before it: never the held-out's own
        rating. None where the backend gives no stars."""
        history = held.episode.history
        liked = [h for h in history if h.rating >= POSITIVE_RATING] or list(history)
        evidence = liked[-1]
        review = await self.agents.review(
            ReviewInput(
                query_text=query,
                profile=profile,
                target=HeldOutTarget(**_past(evidence).model_dump()),
                item=self.evidence(held.episode.target.item_index),
                explanation="",
                history=tuple(_past(h) for h in history),
            ),
            self._seed(held, Stream.REVIEW),
        )
        return None if review.stars is None else float(review.stars)

    def baselines(self, held: HeldOut) -> dict[Key, float]:
        """The popularity and history-centroid rankings of the held-out item."""
        items = [held.episode.target.item_index, *held.negatives]
        popularity = [self.domain.items[i].evidence.rating_number or 0 for i in items]
        views = [visible_text(self.evidence(i).title, self.evidence(i).category) for i in items]
        history = [h.title for h in held.episode.history]
        centroid = self.similarity.vectors(history).mean(axis=0)
        closeness = (self.similarity.vectors(views) @ centroid).tolist()
        found: dict[Key, float] = {}
        for scorer, scores in (("popularity", popularity), ("centroid", closeness)):
            greater = sum(s > scores[0] for s in scores[1:])
            places = range(1 + greater, 2 + greater + sum(s == scores[0] for s in scores[1:]))
            for m in ranked_values(1):  # ties broken at random: the mean over their places
                found[(m, "history", scorer)] = float(
                    np.mean([ranked_values(r)[m] for r in places])
                )
            pair = 1.0 if scores[0] > scores[1] else 0.5 if scores[0] == scores[1] else 0.0
            found[("pairwise_1to1", "history", scorer)] = pair
        return found

    async def score(self, held: HeldOut) -> Scored:
        """Every value of one held-out. A role that fails (``RoleFailure``) is an outcome,
        as in a market round: a ranking not made places the held-out item last, a decision
        not made buys nothing, a request not written leaves the `request` protocol's
        rankings unmade and the decision an empty request."""
        failed: list[str] = []
        profile = _profile(held, self.seed)
        values: dict[Key, float] = {}
        query = await _tried(failed, self.request(held, profile), None)
        target = held.episode.target.item_index
        if held.positive:
            items = [target, *held.negatives]
            for protocol, (text, unit) in zip(PROTOCOLS, (("", 0), (query, 1)), strict=True):
                need = (
                    None
                    if text is None
                    else await _tried(failed, self.need(held, text, unit), None)
                )
                rank, pair = len(items) + 1, 3  # a ranking not made: the held-out last
                if need is not None and text is not None:
                    rank = await _tried(failed, self.rank(held, text, need, items, unit), rank)
                    pair = await _tried(
                        failed, self.rank(held, text, need, items[:2], unit + 2), pair
                    )
                values |= {(m, protocol, "ranker"): v for m, v in ranked_values(rank).items()}
                values[("pairwise_1to1", protocol, "ranker")] = float(pair == 1)
            values |= self.baselines(held)
        asked = query or ""
        bought = await _tried(failed, self.buys(held, asked, profile, target, 0), 0.0)
        rating = held.episode.target.rating
        if rating <= 2:
            values[("p_buy_rated_1_2", "request", "decision")] = bought
        elif held.positive:
            values[("p_buy_rated_4_5", "request", "decision")] = bought
            other = await _tried(failed, self.buys(held, asked, profile, held.negatives[0], 1), 0.0)
            values[("buy_accuracy_1to1", "request", "decision")] = (bought + 1.0 - other) / 2
        real = rating
        stars: dict[str, float | None] = {
            "review": await _tried(failed, self.review_stars(held, asked, profile), None),
            "person_mean": float(np.mean([h.rating for h in held.episode.history])),
            "always_5": 5.0,
        }
        pairs: dict[Key, tuple[float, float]] = {}
        for scorer, said in stars.items():
            if said is not None:
                values[("star_mae", "history", scorer)] = abs(said - real)
                values[("star_rmse", "history", scorer)] = (said - real) ** 2
                pairs[("star_spearman", "history", scorer)] = (said, real)
        return Scored(held.episode.user_id, values, tuple(failed), pairs)


async def _tried(failed: list[str], call: Awaitable[T], fallback: T) -> T:
    """The call's answer, or ``fallback`` where its role failed (the role noted)."""
    try:
        return await call
    except RoleFailure as failure:
        failed.append(failure.role)
        return fallback


async def score_every(
    scorer: UserScorer, held: Sequence[HeldOut], concurrency: int = 1
) -> list[Scored]:
    """Every held-out of a domain, in order, ``concurrency`` at a time (a model's calls
    wait on the network; the offline roles answer at once)."""
    gate = asyncio.Semaphore(concurrency)

    async def one(h: HeldOut) -> Scored:
        async with gate:
            return await scorer.score(h)

    return list(await gather_or_cancel(*(one(h) for h in held)))
