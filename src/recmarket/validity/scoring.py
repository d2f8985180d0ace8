"""The simulated user's roles scored on held-out interactions, beside the baselines a user
model must beat, through the same role contracts the market uses (any backend answers).

Per held-out, and under two protocols (``history``: the request is empty and only the
history can tell the items apart; ``request``: the simulator writes its own request from
the held-out target, as in a market round):
- the user agent ranks the held-out item among its negatives (HR@1, HR@3, NDCG@10, on
  positives: rated POSITIVE_RATING or more), and against one negative at a time
  (pairwise), for every number of candidates and every pool of negatives (``pools``)
  asked for;
- the decision, shown the held-out item alone, buys it with some probability (its exact
  chance where its backend says it, ``ChoiceChances``, else its one draw): P(buy) by the
  person's rating, and on positives the 1:1 accuracy of buying it and not buying a
  negative.
The baselines (``baselines.BASELINES``) rank the same candidates from the history and the
category's data; chance is the analytic value.

A 1:1 measure estimates the chance that the held-out wins against one negative drawn from
the pool. Each held-out is paired, one pair a call, with each of its pool's first
``pairs`` negatives (the draws of every size share them, so the measure agrees across
candidate counts), and its value is the mean over those pairs: the same chance as from one
pair, which is what the field's 1:1 protocols report, with less of the negative's own
luck in it. One pair gives a person's value 0 or 1, and ~190 people then leave the
interval ~7 points either side, too wide to tell a 57% accuracy from chance.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
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
from recmarket.embedding.similarity import Similarity
from recmarket.profiles import PROFILE_BY_NAME, PROFILE_NAMES, Profile
from recmarket.streams import Stream, call_seed, rng
from recmarket.tasks import gather_or_cancel
from recmarket.validity.baselines import BASELINES, Baseline, Trained
from recmarket.validity.category_data import CategoryData
from recmarket.validity.heldout import POSITIVE_RATING, HeldOut
from recmarket.validity.pools import POOLS
from recmarket.validity.ranking import ranked_values, tied_values

T = TypeVar("T")
# (measure, protocol, scorer, candidates, pool) -> one held-out's value; a measure that no
# draw of negatives changes (the decision's P(buy), the review's stars) is keyed ANY
Key = tuple[str, str, str, int, str]
ANY: tuple[int, str] = (0, "")
PROTOCOLS = ("history", "request")
# A pair's calls are told apart from the rankings' by this stride of their unit (a draw's
# ranking takes units below it); the first pair keeps the unit one pair had alone, so a
# model's stored answers to it are still read.
PAIR_UNITS = 10_000


@dataclass(frozen=True)
class Scored:
    """One held-out's values, keyed by (measure, protocol, scorer, candidates, pool), and
    whose they are."""

    domain: str
    person: str
    values: dict[Key, float]
    failures: tuple[str, ...] = ()  # the roles that failed on it, one entry a failure
    # (predicted, real) stars for the rank correlations, by (measure, protocol, scorer)
    pairs: dict[Key, tuple[float, float]] = field(default_factory=dict)


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
    candidates: tuple[int, ...] = (10,)  # the held-out among this many, each a protocol
    pools: tuple[str, ...] = tuple(POOLS)
    baselines: Mapping[str, Baseline] = field(default_factory=lambda: dict(BASELINES))
    pairs: int | None = None  # negatives paired 1:1 with the held-out; None: the fewest drawn

    def __post_init__(self) -> None:
        if not 1 <= self.paired <= min(self.candidates) - 1:
            raise ValueError(
                f"pairs {self.pairs}: pair the held-out with 1 to {min(self.candidates) - 1} "
                "negatives (the fewest a draw has)"
            )

    @property
    def paired(self) -> int:
        """How many negatives each held-out meets one at a time."""
        return min(self.candidates) - 1 if self.pairs is None else self.pairs

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

    @cached_property
    def data(self) -> CategoryData:
        """What the baselines read of the category."""
        return CategoryData(self.domain, self.similarity, self.seed)

    @cached_property
    def ladder(self) -> dict[str, Baseline]:
        """The baselines that can speak in this category (``Baseline.note`` empty)."""
        return {name: b for name, b in self.baselines.items() if not b.note(self.data)}

    @property
    def draws(self) -> list[tuple[int, str]]:
        """The (candidates, pool) protocols, the first pool's first: a draw's place keys
        its shuffles and calls."""
        return [(count, pool) for pool in self.pools for count in self.candidates]

    def prepare(self) -> None:
        """Train the ladder's trained rungs before any held-out is scored: a fit takes
        seconds, and a model's calls in flight must not wait on it."""
        for baseline in self.ladder.values():
            if isinstance(baseline, Trained):
                baseline.fit(self.data)

    def baseline_values(self, held: HeldOut, count: int, pool: str) -> dict[Key, float]:
        """Every baseline's ranking of the held-out among ``count`` candidates of ``pool``."""
        negatives = held.negatives(pool, count - 1)
        if negatives is None:
            return {}
        items = [held.episode.target.item_index, *negatives]
        found: dict[Key, float] = {}
        for name, baseline in self.ladder.items():
            scores = baseline.scores(self.data, held, items)
            for m, v in tied_values(scores, self.paired).items():
                found[(m, "history", name, count, pool)] = v
        return found

    async def rankings(
        self, held: HeldOut, query: str | None, failed: list[str]
    ) -> dict[Key, float]:
        """The user agent's rankings of a liked held-out under both protocols and every
        draw. A ranking not made places the held-out last."""
        values: dict[Key, float] = {}
        target = held.episode.target.item_index
        for unit, (protocol, text) in enumerate(zip(PROTOCOLS, ("", query), strict=True)):
            need = None if text is None else await _tried(failed, self.need(held, text, unit), None)
            pairs: dict[str, float] = {}
            for place, (count, pool) in enumerate(self.draws):
                negatives = held.negatives(pool, count - 1)
                if negatives is None:
                    continue
                items = [target, *negatives]
                rank = len(items) + 1
                if need is not None and text is not None:
                    rank = await _tried(
                        failed, self.rank(held, text, need, items, unit + 10 * place), rank
                    )
                    if pool not in pairs:
                        first = unit + 2 + 10 * self.pools.index(pool)
                        won = [
                            await _tried(
                                failed,
                                self.rank(
                                    held, text, need, [target, other], first + PAIR_UNITS * j
                                ),
                                2,
                            )
                            == 1
                            for j, other in enumerate(negatives[: self.paired])
                        ]
                        pairs[pool] = float(np.mean(won))
                pairs.setdefault(pool, 0.0)
                for m, v in ranked_values(rank).items():
                    values[(m, protocol, "ranker", count, pool)] = v
                values[("pairwise_1to1", protocol, "ranker", count, pool)] = pairs[pool]
        for count, pool in self.draws:
            values |= self.baseline_values(held, count, pool)
        return values

    async def decisions(
        self, held: HeldOut, asked: str, profile: Profile, failed: list[str]
    ) -> dict[Key, float]:
        """The decision's chance of buying the held-out shown alone, by the person's
        rating, and on a liked one its 1:1 accuracy against each pool's paired negatives."""
        target = held.episode.target.item_index
        bought = await _tried(failed, self.buys(held, asked, profile, target, 0), 0.0)
        rating = held.episode.target.rating
        if rating <= 2:
            return {("p_buy_rated_1_2", "request", "decision", *ANY): bought}
        if not held.positive:
            return {}
        values: dict[Key, float] = {("p_buy_rated_4_5", "request", "decision", *ANY): bought}
        for place, pool in enumerate(self.pools):
            paired = held.negatives(pool, self.paired)
            if paired is None:
                continue
            others = [
                await _tried(
                    failed, self.buys(held, asked, profile, item, 1 + place + PAIR_UNITS * j), 0.0
                )
                for j, item in enumerate(paired)
            ]
            for count in self.candidates:
                if held.negatives(pool, count - 1) is not None:
                    key = ("buy_accuracy_1to1", "request", "decision", count, pool)
                    values[key] = (bought + 1.0 - float(np.mean(others))) / 2
        return values

    async def score(self, held: HeldOut) -> Scored:
        """Every value of one held-out. A role that fails (``RoleFailure``) is an outcome,
        as in a market round: a ranking not made places the held-out item last, a decision
        not made buys nothing, a request not written leaves the `request` protocol's
        rankings unmade and the decision an empty request."""
        failed: list[str] = []
        profile = _profile(held, self.seed)
        query = await _tried(failed, self.request(held, profile), None)
        values = await self.rankings(held, query, failed) if held.positive else {}
        asked = query or ""
        values |= await self.decisions(held, asked, profile, failed)
        real = held.episode.target.rating
        stars: dict[str, float | None] = {
            "review": await _tried(failed, self.review_stars(held, asked, profile), None),
            "person_mean": float(np.mean([h.rating for h in held.episode.history])),
            "always_5": 5.0,
        }
        pairs: dict[Key, tuple[float, float]] = {}
        for scorer, said in stars.items():
            if said is not None:
                values[("star_mae", "history", scorer, *ANY)] = abs(said - real)
                values[("star_rmse", "history", scorer, *ANY)] = (said - real) ** 2
                pairs[("star_spearman", "history", scorer, *ANY)] = (said, real)
        return Scored(self.domain.name, held.episode.user_id, values, tuple(failed), pairs)


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
