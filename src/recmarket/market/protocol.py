"""One round of the market (Section 3.2), under one of three conditions (Section 4.1).

Stage 1: the user writes a request and the user agent structures it. Stage 2: every
platform retrieves one candidate and explains it under its fixed policy. Stage 3: the
candidates are shuffled and the user agent ranks exactly K of them with a reason each.
Stage 4: the user buys one shown item or nothing; under LocalRep a purchase is reviewed and
the purchased platform's history gains one claim-reliability record.

``platform-centric`` replaces stages 2-3 by the J items of one uniformly entered platform,
with no user agent and no reputation; ``no-rep`` neither reads nor writes histories.

The protocol does not know which backend answers a role: it builds each role's typed input,
awaits the role, and logs the call. Each call's seed comes from a named stream keyed by the
episode (and platform), so cells that share a request share its answers where their inputs
agree.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import numpy as np

from recmarket.agents.contracts import (
    CandidateView,
    Contract,
    Decision,
    DecisionInput,
    ExplanationInput,
    HeldOutTarget,
    NeedInput,
    PastInteraction,
    Query,
    QueryInput,
    RankedItem,
    ReputationRecord,
    ReviewInput,
    ShortlistInput,
    ShownOption,
    StructuredNeed,
    UpdateInput,
)
from recmarket.agents.roles import Agents
from recmarket.data.episodes import Interaction, Request
from recmarket.embedding import Embedder
from recmarket.market.build import DomainMarket, request_key
from recmarket.market.outcome import Call, Condition, Outcome, Proposal
from recmarket.market.reputation import ReputationMemory
from recmarket.market.retrieval import EpisodeDraws
from recmarket.profiles import PROFILE_BY_NAME
from recmarket.streams import Stream, call_seed, rng


class ProtocolError(RuntimeError):
    """A role answered outside its contract (for example a shortlist with unknown ids)."""


def _past(h: Interaction) -> PastInteraction:
    return PastInteraction(
        title=h.title, rating=h.rating, review_title=h.review_title, review_text=h.review_text
    )


def _held_out(t: Interaction) -> HeldOutTarget:
    return HeldOutTarget(
        title=t.title, rating=t.rating, review_title=t.review_title, review_text=t.review_text
    )


@dataclass(frozen=True)
class Stage1:
    """The request and its structure: they do not depend on reputation or on the cell's
    market, so a domain's requests can be prepared once, ahead of their episodes."""

    query: Query
    need: StructuredNeed
    calls: tuple[Call, ...]


@dataclass
class _Asker:
    """Calls roles for one episode with per-call seeds, logging every call in order."""

    agents: Agents
    seed: int
    domain: str
    episode_key: int
    calls: list[Call]

    async def __call__(self, role: str, inp: Contract, stream: Stream, *unit: int) -> Any:
        seed = call_seed(self.seed, self.domain, stream, self.episode_key, *unit)
        out = await getattr(self.agents, role)(inp, seed)
        self.calls.append(Call(role, inp, out))
        return out


@dataclass
class Round:
    """Plays episodes of one domain under one condition."""

    market: DomainMarket
    agents: Agents
    embedder: Embedder
    condition: Condition
    memory: ReputationMemory | None = None
    long_term_weight: float = 0.25

    def _asker(self, request: Request, calls: list[Call]) -> _Asker:
        return _Asker(
            self.agents, self.market.seed, self.market.domain.name, request_key(request), calls
        )

    async def stage1(self, request: Request) -> Stage1:
        calls: list[Call] = []
        ask = self._asker(request, calls)
        episode = request.episode
        history = tuple(_past(h) for h in episode.history)
        query = await ask(
            "query",
            QueryInput(
                domain=self.market.domain.name,
                profile=PROFILE_BY_NAME[request.profile],
                history=history,
                target=_held_out(episode.target),
            ),
            Stream.QUERY,
        )
        need = await ask(
            "need", NeedInput(history=history, query_text=query.query_text), Stream.NEED
        )
        return Stage1(query, need, tuple(calls))

    def need_vectors(self, needs: list[StructuredNeed]) -> np.ndarray:
        """Needs as platforms search with them: current and long-term parts, weighted; one
        batched encoding for many needs."""
        encoded = self.embedder.encode_queries(
            [text for n in needs for text in (n.current_need, n.long_term_need)]
        )
        vectors = (1 - self.long_term_weight) * encoded[0::2] + self.long_term_weight * encoded[
            1::2
        ]
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors / np.maximum(norms, 1e-12)

    async def play(
        self, request: Request, stage1: Stage1 | None = None, vector: np.ndarray | None = None
    ) -> Outcome:
        stage1 = stage1 or await self.stage1(request)
        if vector is None:
            vector = self.need_vectors([stage1.need])[0]
        ask = self._asker(request, list(stage1.calls))
        scores = self.market.retriever.scores(vector)
        draws = self.market.draws(request)
        if self.condition == "platform-centric":
            return await self._platform_centric(request, stage1, ask, scores, draws)
        return await self._user_agent(request, stage1, ask, scores, draws)

    async def _explain(
        self, ask: _Asker, need: StructuredNeed, platform: int, item: int, forced: bool, unit: int
    ) -> Proposal:
        policy = self.market.policies[platform]
        platform_id = self.market.platform_ids[platform]
        out = await ask(
            "explain",
            ExplanationInput(
                platform_id=platform_id,
                policy=policy,
                need=need,
                item=self.market.domain.items[item].evidence,
            ),
            Stream.EXPLAIN,
            unit,
        )
        return Proposal(platform_id, policy, item, forced, out.text)

    async def _platform_centric(
        self, request: Request, stage1: Stage1, ask: _Asker, scores: np.ndarray, draws: EpisodeDraws
    ) -> Outcome:
        target = request.episode.target.item_index
        platform, items, forced = self.market.retriever.platform_centric(
            scores, target, draws, self.market.config.j
        )
        shown = list(
            await asyncio.gather(
                *(
                    self._explain(
                        ask,
                        stage1.need,
                        platform,
                        item,
                        forced and item == target,
                        100 * platform + rank,
                    )
                    for rank, item in enumerate(items)
                )
            )
        )
        options = tuple(
            ShownOption(
                option_id=f"{p.platform_id}#{rank}",
                rank=rank,
                platform_id=p.platform_id,
                **self.visible(p),
            )
            for rank, p in enumerate(shown, start=1)
        )
        decision = await self._decide(ask, request, stage1, options, platform_centric=True)
        return Outcome(request, self.condition, target, shown, shown, decision, None, ask.calls)

    async def _user_agent(
        self, request: Request, stage1: Stage1, ask: _Asker, scores: np.ndarray, draws: EpisodeDraws
    ) -> Outcome:
        target = request.episode.target.item_index
        retrieved = [
            r
            for r in self.market.retriever.user_agent_pool(scores, target, draws)
            if r.candidate >= 0
        ]
        pool = list(
            await asyncio.gather(
                *(
                    self._explain(
                        ask, stage1.need, r.platform, r.candidate, r.forced, 100 * r.platform
                    )
                    for r in retrieved
                )
            )
        )
        by_id = {p.platform_id: p for p in pool}
        order = rng(
            self.market.seed, self.market.domain.name, Stream.SHUFFLE, ask.episode_key
        ).permutation(len(pool))
        histories = self.memory.histories(request, tuple(by_id)) if self.memory else None
        k = min(self.market.config.shortlist_k, len(pool))
        shortlist = await ask(
            "shortlist",
            ShortlistInput(
                query_text=stage1.query.query_text,
                need=stage1.need,
                k=k,
                histories=histories,
                candidates=tuple(
                    CandidateView(platform_id=pool[i].platform_id, **self.visible(pool[i]))
                    for i in order
                ),
            ),
            Stream.SHORTLIST,
        )
        ranked = self.validated(shortlist.ranked, by_id, k)
        options = tuple(
            ShownOption(
                option_id=r.platform_id,
                rank=rank,
                platform_id=r.platform_id,
                reason=r.reason,
                **self.visible(by_id[r.platform_id]),
            )
            for rank, r in enumerate(ranked, start=1)
        )
        decision = await self._decide(ask, request, stage1, options)
        shown = [by_id[r.platform_id] for r in ranked]
        outcome = Outcome(request, self.condition, target, pool, shown, decision, None, ask.calls)
        if self.memory is not None and outcome.purchased is not None:
            reason = next(
                r.reason for r in ranked if r.platform_id == outcome.purchased.platform_id
            )
            outcome.record = await self._feedback(request, stage1, ask, outcome.purchased, reason)
        return outcome

    @staticmethod
    async def _decide(
        ask: _Asker,
        request: Request,
        stage1: Stage1,
        options: tuple[ShownOption, ...],
        platform_centric: bool = False,
    ) -> Decision:
        return await ask(
            "decide",
            DecisionInput(
                query_text=stage1.query.query_text,
                instruction=PROFILE_BY_NAME[request.profile].instruction,
                options=options,
                platform_centric=platform_centric,
            ),
            Stream.DECIDE,
        )

    async def _feedback(
        self, request: Request, stage1: Stage1, ask: _Asker, bought: Proposal, reason: str
    ) -> ReputationRecord:
        """Stage 4 under reputation: the review, then the purchased platform's record."""
        evidence = self.market.domain.items[bought.item_index].evidence
        review = await ask(
            "review",
            ReviewInput(
                query_text=stage1.query.query_text,
                profile=PROFILE_BY_NAME[request.profile],
                target=_held_out(request.episode.target),
                item=evidence,
                explanation=bought.explanation,
            ),
            Stream.REVIEW,
        )
        record = await ask(
            "update",
            UpdateInput(
                query_text=stage1.query.query_text,
                need=stage1.need,
                platform_id=bought.platform_id,
                item_title=evidence.title,
                item_category=evidence.category,
                explanation=bought.explanation,
                reason=reason,
                review=review.text,
            ),
            Stream.UPDATE,
        )
        assert self.memory is not None
        self.memory.append(request, bought.platform_id, record)
        return record

    def visible(self, p: Proposal) -> dict[str, str]:
        """The fields of a proposal that the user agent and the user see."""
        evidence = self.market.domain.items[p.item_index].evidence
        return {
            "title": evidence.title,
            "category": evidence.category,
            "explanation": p.explanation,
        }

    @staticmethod
    def validated(
        ranked: tuple[RankedItem, ...], by_id: dict[str, Proposal], k: int
    ) -> tuple[RankedItem, ...]:
        ids = [r.platform_id for r in ranked]
        if len(ids) != k or len(set(ids)) != k or not set(ids) <= by_id.keys():
            raise ProtocolError(
                f"shortlist must rank exactly {k} unique candidate platform ids, got {ids}"
            )
        return ranked
