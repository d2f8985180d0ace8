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
from dataclasses import dataclass, field
from typing import Literal

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
from recmarket.market.policies import Policy
from recmarket.market.reputation import ReputationMemory
from recmarket.profiles import PROFILE_BY_NAME
from recmarket.streams import Stream, call_seed, rng

Condition = Literal["platform-centric", "no-rep", "local-rep"]
CONDITIONS: tuple[Condition, ...] = ("platform-centric", "no-rep", "local-rep")


class ProtocolError(RuntimeError):
    """A role answered outside its contract (for example a shortlist with unknown ids)."""


@dataclass(frozen=True)
class Call:
    role: str
    input: Contract
    output: Contract


@dataclass(frozen=True)
class Proposal:
    platform_id: str
    policy: Policy
    item_index: int
    forced: bool
    explanation: str


@dataclass
class Outcome:
    """Everything one episode produced, for metrics and the store."""

    request: Request
    condition: Condition
    target: int
    pool: list[Proposal]
    shown: list[Proposal]  # in displayed order: the shortlist, or the entered platform's J
    decision: Decision
    record: ReputationRecord | None = None
    calls: list[Call] = field(default_factory=list)

    @property
    def purchased(self) -> Proposal | None:
        if self.decision.option_id is None:
            return None
        return next(
            p
            for p, o in zip(self.shown, self.option_ids(), strict=True)
            if o == self.decision.option_id
        )

    def option_ids(self) -> list[str]:
        if self.condition == "platform-centric":
            return [f"{p.platform_id}#{rank}" for rank, p in enumerate(self.shown, start=1)]
        return [p.platform_id for p in self.shown]


def _past(h: Interaction) -> PastInteraction:
    return PastInteraction(
        title=h.title, rating=h.rating, review_title=h.review_title, review_text=h.review_text
    )


def _held_out(t: Interaction) -> HeldOutTarget:
    return HeldOutTarget(
        title=t.title, rating=t.rating, review_title=t.review_title, review_text=t.review_text
    )


@dataclass
class Round:
    """Plays episodes of one domain under one condition."""

    market: DomainMarket
    agents: Agents
    embedder: Embedder
    condition: Condition
    memory: ReputationMemory | None = None
    long_term_weight: float = 0.25

    async def play(self, request: Request) -> Outcome:
        episode_key = request_key(request)
        domain, seed = self.market.domain.name, self.market.seed
        calls: list[Call] = []

        async def ask(role: str, inp: Contract, stream: Stream, *unit: int) -> Contract:
            out = await getattr(self.agents, role)(
                inp, call_seed(seed, domain, stream, episode_key, *unit)
            )
            calls.append(Call(role, inp, out))
            return out

        episode = request.episode
        profile = PROFILE_BY_NAME[request.profile]
        history = tuple(_past(h) for h in episode.history)
        query = await ask(
            "query",
            QueryInput(
                domain=domain,
                profile=profile,
                history=history,
                target=_held_out(episode.target),
            ),
            Stream.QUERY,
        )
        need = await ask(
            "need", NeedInput(history=history, query_text=query.query_text), Stream.NEED
        )
        scores = self.market.retriever.scores(self.need_vector(need))
        draws = self.market.draws(request)
        target = episode.target.item_index

        async def explain(platform: int, item: int, forced: bool, unit: int) -> Proposal:
            policy = self.market.policies[platform]
            out = await ask(
                "explain",
                ExplanationInput(
                    platform_id=self.market.platform_ids[platform],
                    policy=policy,
                    need=need,
                    item=self.market.domain.items[item].evidence,
                ),
                Stream.EXPLAIN,
                unit,
            )
            return Proposal(self.market.platform_ids[platform], policy, item, forced, out.text)

        if self.condition == "platform-centric":
            platform, shown_items, forced = self.market.retriever.platform_centric(
                scores, target, draws, self.market.config.j
            )
            shown = list(
                await asyncio.gather(
                    *(
                        explain(platform, item, forced and item == target, 100 * platform + rank)
                        for rank, item in enumerate(shown_items)
                    )
                )
            )
            options = [
                ShownOption(
                    option_id=f"{p.platform_id}#{rank}",
                    rank=rank,
                    platform_id=p.platform_id,
                    **self.visible(p),
                )
                for rank, p in enumerate(shown, start=1)
            ]
            decision = await ask(
                "decide",
                DecisionInput(
                    query_text=query.query_text,
                    instruction=profile.instruction,
                    options=tuple(options),
                    platform_centric=True,
                ),
                Stream.DECIDE,
            )
            return Outcome(request, self.condition, target, shown, shown, decision, None, calls)

        retrieved = [
            r
            for r in self.market.retriever.user_agent_pool(scores, target, draws)
            if r.candidate >= 0
        ]
        pool = list(
            await asyncio.gather(
                *(explain(r.platform, r.candidate, r.forced, 100 * r.platform) for r in retrieved)
            )
        )
        order = rng(seed, domain, Stream.SHUFFLE, episode_key).permutation(len(pool))
        by_id = {p.platform_id: p for p in pool}
        histories = None
        if self.memory is not None:
            histories = self.memory.histories(request, tuple(by_id))
        k = min(self.market.config.shortlist_k, len(pool))
        shortlist = await ask(
            "shortlist",
            ShortlistInput(
                query_text=query.query_text,
                need=need,
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
        shown = [by_id[r.platform_id] for r in ranked]
        options = [
            ShownOption(
                option_id=r.platform_id,
                rank=rank,
                platform_id=r.platform_id,
                reason=r.reason,
                **self.visible(by_id[r.platform_id]),
            )
            for rank, r in enumerate(ranked, start=1)
        ]
        decision = await ask(
            "decide",
            DecisionInput(
                query_text=query.query_text,
                instruction=profile.instruction,
                options=tuple(options),
            ),
            Stream.DECIDE,
        )
        outcome = Outcome(request, self.condition, target, pool, shown, decision, None, calls)
        bought = outcome.purchased
        if self.memory is not None and bought is not None:
            item = self.market.domain.items[bought.item_index]
            review = await ask(
                "review",
                ReviewInput(
                    query_text=query.query_text,
                    profile=profile,
                    target=_held_out(episode.target),
                    item=item.evidence,
                    explanation=bought.explanation,
                ),
                Stream.REVIEW,
            )
            reason = next(r.reason for r in ranked if r.platform_id == bought.platform_id)
            outcome.record = await ask(
                "update",
                UpdateInput(
                    query_text=query.query_text,
                    need=need,
                    platform_id=bought.platform_id,
                    item_title=item.evidence.title,
                    item_category=item.evidence.category,
                    explanation=bought.explanation,
                    reason=reason,
                    review=review.text,
                ),
                Stream.UPDATE,
            )
            self.memory.append(request, bought.platform_id, outcome.record)
        return outcome

    def need_vector(self, need: StructuredNeed) -> np.ndarray:
        """The need as platforms search with it: current and long-term parts, weighted."""
        current, long_term = self.embedder.encode_queries([need.current_need, need.long_term_need])
        vector = (1 - self.long_term_weight) * current + self.long_term_weight * long_term
        return vector / max(float(np.linalg.norm(vector)), 1e-12)

    def visible(self, p: Proposal) -> dict[str, str]:
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
