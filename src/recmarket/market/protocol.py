"""One round of the market (Section 3.2), under one of three conditions (Section 4.1).

Stage 1: the user writes a request and the user agent structures it. Stage 2: every
platform in the market retrieves one candidate and explains it under the presentation its
strategy chooses (its fixed policy, an adaptive platform's arm, or an attack's:
``market.attacks``).
Stage 3: the candidates are shuffled and the user agent ranks exactly K of them with a
reason each. Stage 4: the user buys one shown item or nothing; under LocalRep a purchase is
reviewed and the purchased platform's history gains one claim-reliability record.

``platform-centric`` replaces stages 2-3 by the J items of one uniformly entered platform,
with no user agent and no reputation; ``no-rep`` neither reads nor writes histories.

The protocol does not know which backend answers a role: it builds each role's typed input,
awaits the role, and logs the call. Each call's seed comes from a named stream keyed by the
episode (and platform), so cells that share a request share its answers where their inputs
agree.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from recmarket.agents.contracts import (
    ChoiceChances,
    DecisionInput,
    ExplanationInput,
    HeldOutTarget,
    NeedInput,
    QueryInput,
    RankedItem,
    ReviewInput,
    RoleFailure,
    ShortlistInput,
    StructuredNeed,
    UpdateInput,
)
from recmarket.agents.judgement import Judge
from recmarket.agents.roles import Agents
from recmarket.catalogue.conditions import condition
from recmarket.catalogue.strategies import Arm
from recmarket.data.episodes import Interaction, Request
from recmarket.embedding import Embedder
from recmarket.embedding.similarity import similarity_for, visible_text
from recmarket.market.asker import RoleAsker
from recmarket.market.belief_grid import ClaimDistance, target_top1_mask
from recmarket.market.build import DomainMarket, request_key
from recmarket.market.listings import seat_listing, visible
from recmarket.market.metrics import item_worth, target_fit
from recmarket.market.outcome import Outcome, Proposal
from recmarket.market.reputation import ReputationMemory
from recmarket.market.searching import Job, retrieve
from recmarket.market.seats import Strategies, lessons
from recmarket.market.written import forge, oracle
from recmarket.profiles import PROFILE_BY_NAME
from recmarket.streams import Stream, brief
from recmarket.tasks import FanOut, InTurn, Together
from recmarket.vocabulary import Condition


class ProtocolError(RuntimeError):
    """A role answered outside its contract (for example a shortlist with unknown ids)."""


def _past(h: Interaction) -> dict[str, Any]:
    """A history entry's observable fields (store and price where the data has them),
    validated with the input that carries them (in one pass, about a third of the time of
    building each entry alone)."""
    return {
        "title": h.title,
        "rating": h.rating,
        "review_title": h.review_title,
        "review_text": h.review_text,
        "store": h.store,
        "price": h.price,
    }


def _held_out(t: Interaction) -> HeldOutTarget:
    return HeldOutTarget(
        title=t.title, rating=t.rating, review_title=t.review_title, review_text=t.review_text
    )


@dataclass
class Round:
    """Plays episodes of one domain under one condition.

    ``prepare`` runs stages 1-2 for many requests at once (they do not depend on
    reputation: the requests, needs, retrieval and explanations), with the needs embedded in
    one batch; ``finish`` runs stages 3-4 for one prepared episode, reading and writing
    reputation. A role failure ends its episode there and is recorded on the outcome.
    """

    market: DomainMarket
    agents: Agents
    embedder: Embedder
    condition: Condition
    memory: ReputationMemory | None = None
    judge: Judge | None = None  # measures target_fit and regret
    draws: int = 0  # the roles' set of draws (RunConfig.draws)
    record_choices: bool = False  # keep the decision's chances (RunConfig.record_choices)
    claim_distance: ClaimDistance | None = None  # with the judge, the target_top1_grid
    strategies: Strategies = field(init=False)  # every seat's, built from the market
    fan_out: FanOut = field(init=False)  # how a stage's calls are awaited together

    def __post_init__(self) -> None:
        self.strategies = Strategies(self.market)
        self.fan_out = InTurn() if self.agents.answer_at_once else Together()

    async def play(self, request: Request) -> Outcome:
        """Play one request through all four stages."""
        (prepared,) = await self.prepare([request])
        return await self.finish(prepared)

    def _asker(self, outcome: Outcome) -> RoleAsker:
        return RoleAsker(
            self.agents,
            self.market.seed,
            self.market.domain.name,
            request_key(outcome.request),
            outcome.calls,
            self.draws,
        )

    async def prepare(self, requests: list[Request]) -> list[Outcome]:
        """Stages 1-2 of many requests."""
        return await self.propose(await self.ask_needs(requests))

    async def ask_needs(self, requests: list[Request]) -> list[Outcome]:
        """Stage 1 of many requests, their needs embedded in one batch as search vectors.
        Separate from stage 2 because adaptive platforms can only propose once the
        previous learning period has finished, while needs can be asked for ahead."""
        outcomes = [Outcome(r, self.condition, r.episode.target.item_index) for r in requests]
        await self.fan_out.all(self._stage1(o) for o in outcomes)
        ready = [o for o in outcomes if o.failed_role is None]
        if ready and self.judge is not None:  # one batch for the texts every role reads
            self.judge.similarity.vectors(
                [
                    t
                    for o in ready
                    if o.need and o.query
                    for t in (o.need.current_need, o.query.query_text)
                ]
            )
        if ready:
            vectors = self.need_vectors([o.need for o in ready if o.need is not None])
            for o, vector in zip(ready, vectors, strict=True):
                o.search_vector = vector
        return outcomes

    async def propose(self, outcomes: list[Outcome]) -> list[Outcome]:
        """Stage 2 of outcomes whose stage 1 succeeded: their retrieval together, then each
        one's explanations."""
        searches = [(o, o.search_vector) for o in outcomes if o.search_vector is not None]
        retrieved = retrieve(
            self.market, self.strategies, condition(self.condition).user_agent, searches
        )
        if self.judge is not None:  # what target_fit and an offline ranker read next
            items = self.market.domain.items
            self.judge.read_ahead(
                [
                    (o.need.current_need, visible_text(view.title, view.category))
                    for (o, _), jobs in zip(searches, retrieved, strict=True)
                    if o.need is not None
                    for view in (items[job[1]].evidence for job in jobs)
                ]
            )
        await self.fan_out.all(
            self._stage2(o, jobs) for (o, _), jobs in zip(searches, retrieved, strict=True)
        )
        return outcomes

    async def _stage1(self, o: Outcome) -> None:
        ask = self._asker(o)
        episode = o.request.episode
        asked = QueryInput.model_validate(
            {
                "domain": self.market.domain.name,
                "profile": PROFILE_BY_NAME[o.request.profile],
                "history": [_past(h) for h in episode.history],
                "target": _held_out(episode.target),
            }
        )
        try:
            o.query = await ask("query", asked, Stream.QUERY)
            o.need = await ask(
                "need",
                NeedInput(history=asked.history, query_text=o.query.query_text),
                Stream.NEED,
            )
        except RoleFailure as failure:
            o.fail(failure)

    def need_vectors(self, needs: list[StructuredNeed]) -> np.ndarray:
        """Needs as platforms search with them: current and long-term parts, weighted; one
        batched encoding for many needs, of the texts not encoded before."""
        encoded = similarity_for(self.embedder).query_vectors(
            [text for n in needs for text in (n.current_need, n.long_term_need)]
        )
        weight = self.market.config.long_term_weight
        vectors = (1 - weight) * encoded[0::2] + weight * encoded[1::2]
        return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)

    async def _stage2(self, o: Outcome, jobs: list[Job]) -> None:
        """The platforms' proposals (or the entered platform's J items), explained."""
        ask = self._asker(o)
        for index, seat in enumerate(
            self.market.seats
        ):  # every name not its seat's, present or not
            if (name := self.strategies.identity(o.request, index)) != seat.platform_id:
                o.identities[seat.platform_id] = name
        # Every explanation is awaited, failed or not, so no call is still in flight (and
        # logged without its answer) when a failure ends the episode.
        explained = await self.fan_out.settled(self._explain(ask, o, *job) for job in jobs)
        for result in explained:
            if isinstance(result, BaseException) and not isinstance(result, RoleFailure):
                raise result
        failure = next((r for r in explained if isinstance(r, RoleFailure)), None)
        if failure is not None:
            o.fail(failure)
            return
        o.pool = [p for p in explained if isinstance(p, Proposal)]
        if self.judge is not None:
            o.target_fit = target_fit(o, self.market.domain, self.judge)
            if self.claim_distance is not None:
                o.target_top1_mask = target_top1_mask(
                    o, self.market.domain, self.judge, self.claim_distance
                )
        if not condition(self.condition).user_agent:
            o.shown = list(o.pool)

    def presentation(self, o: Outcome, platform: int) -> Arm:
        """The platform's policy and claim intensity for this proposal, as its strategy
        chooses; the episode records an adaptive platform's choice."""
        arm = self.strategies.choose(o.request, platform)
        if self.strategies.seats[platform].adaptive:
            o.choices[self.market.seats[platform].platform_id] = arm.name
        return arm

    async def _explain(
        self, ask: RoleAsker, o: Outcome, platform: int, item: int, forced: bool, unit: int
    ) -> Proposal:
        assert o.need is not None
        arm = self.presentation(o, platform)
        platform_id = self.market.seats[platform].platform_id
        identity = o.identities.get(platform_id, platform_id)  # named in _stage2
        out = await ask(
            "explain",
            ExplanationInput(
                platform_id=identity,
                policy=arm.policy,
                intensity=None if arm.intensity == 1.0 else arm.intensity,
                need=o.need,
                item=(evidence := self.market.domain.items[item].evidence),
            ),
            Stream.EXPLAIN,
            unit,
        )
        shown_as = identity if identity != platform_id else ""
        seat = self.market.seats[platform]  # its listing: the item's own or rewritten
        listed = await seat_listing(ask, seat, o.need, evidence, unit)
        copied = seat.copy is not None
        return Proposal(platform_id, arm.policy, item, forced, out.text, shown_as, copied, *listed)

    async def finish(self, o: Outcome) -> Outcome:
        """Stages 3-4: shortlist (or the entered platform's list), decision, feedback; then
        what the adaptive platforms learn from it."""
        if o.failed_role is None:
            await self._stages_3_4(o)
        if self.memory is not None:
            forge(o, self.memory, self.market, self.strategies)
        if self.judge is not None:
            o.worth = item_worth(o, self.market.domain, self.judge)
        if self.strategies.adaptive:
            o.lessons = lessons(o, self.market.config)
            self.strategies.observe(o.request.order, o.lessons)
        return o

    async def _stages_3_4(self, o: Outcome) -> None:
        ask = self._asker(o)
        try:
            if condition(self.condition).user_agent:
                await self._shortlist(o, ask)
            options = [  # validated with the input that carries them, in one pass
                {
                    "option_id": option_id,
                    "rank": rank,
                    "platform_id": p.shown_as,
                    "reason": o.reasons.get(p.shown_as),
                    **visible(p, self.market.domain.items),
                }
                for rank, (p, option_id) in enumerate(
                    zip(o.shown, o.option_ids(), strict=True), start=1
                )
            ]
            assert o.query is not None
            asked = DecisionInput.model_validate(
                {
                    "query_text": o.query.query_text,
                    "instruction": PROFILE_BY_NAME[o.request.profile].instruction,
                    "options": options,
                    "platform_centric": not condition(self.condition).user_agent,
                }
            )
            if self.record_choices and isinstance(self.agents.decide, ChoiceChances):
                o.chances = self.agents.decide.chances(asked)
            o.decision = await ask("decide", asked, Stream.DECIDE)
            if self.memory is not None and self.memory.mechanism.knows_targets:
                oracle(o, self.memory)  # records from the held-out target, no review
            elif self.memory is not None and o.purchased is not None:
                await self._feedback(o, ask, o.purchased)
        except RoleFailure as failure:
            o.fail(failure)

    async def _shortlist(self, o: Outcome, ask: RoleAsker) -> None:
        assert o.query is not None and o.need is not None
        by_id = {p.shown_as: p for p in o.pool}
        order = np.arange(len(o.pool))
        if self.market.config.shuffle_candidates:
            order = brief(
                self.market.seed, self.market.domain.name, Stream.SHUFFLE, ask.episode_key
            ).permutation(len(o.pool))
        histories = (
            self.memory.histories(o.request, tuple(by_id))
            if self.memory
            else {platform: () for platform in by_id}
            if condition(self.condition).instructed
            else None
        )
        k = min(self.market.config.shortlist_k, len(o.pool))
        shortlist = await ask(
            "shortlist",
            ShortlistInput.model_validate(
                {
                    "query_text": o.query.query_text,
                    "need": o.need,
                    "k": k,
                    "histories": histories,
                    "mechanism": self.memory.named if self.memory else None,
                    "candidates": [  # validated with the input, in one pass
                        {"platform_id": p.shown_as, **visible(p, self.market.domain.items)}
                        for p in (o.pool[i] for i in order.tolist())
                    ],
                }
            ),
            Stream.SHORTLIST,
        )
        ranked = self.validated(shortlist.ranked, by_id, k)
        o.shown = [by_id[r.platform_id] for r in ranked]
        o.reasons = {r.platform_id: r.reason for r in ranked}

    async def _feedback(self, o: Outcome, ask: RoleAsker, bought: Proposal) -> None:
        """Stage 4 under reputation: the review, then the purchased platform's record."""
        assert o.query is not None and o.need is not None and self.memory is not None
        evidence = self.market.domain.items[bought.item_index].evidence
        episode = o.request.episode
        review = await ask(
            "review",
            ReviewInput.model_validate(
                {
                    "query_text": o.query.query_text,
                    "profile": PROFILE_BY_NAME[o.request.profile],
                    "target": _held_out(episode.target),
                    "item": evidence,
                    "explanation": bought.explanation,
                    "history": [_past(h) for h in episode.history],
                    "listing": bought.listing,
                }
            ),
            Stream.REVIEW,
        )
        o.record = await ask(
            "update",
            UpdateInput(
                query_text=o.query.query_text,
                need=o.need,
                platform_id=bought.shown_as,
                item_title=evidence.title,
                item_category=evidence.category,
                explanation=bought.explanation,
                reason=o.reasons[bought.shown_as],
                review=review.text,
            ),
            Stream.UPDATE,
        )
        self.memory.append(o.request, bought.shown_as, o.record)

    @staticmethod
    def validated(
        ranked: tuple[RankedItem, ...], by_id: dict[str, Proposal], k: int
    ) -> tuple[RankedItem, ...]:
        """The shortlist, if it ranks exactly K distinct candidates; else a
        ``ProtocolError``."""
        ids = [r.platform_id for r in ranked]
        if len(ids) != k or len(set(ids)) != k or not set(ids) <= by_id.keys():
            raise ProtocolError(
                f"shortlist must rank exactly {k} unique candidate platform ids, got {ids}"
            )
        return ranked
