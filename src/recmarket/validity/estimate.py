"""What ``recmarket validate`` would ask a model, and what it would cost, before a call is
made: a sample of each domain's held-outs is scored with the offline rules, every role
call rendered into the prompt card it would become, and the calls and characters are
scaled to all held-outs and priced with the models the settings give the roles (as
``recmarket estimate`` prices a run, ``run.estimate.priced_roles``)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from recmarket.agents.contracts import Contract
from recmarket.agents.llm.cards import render
from recmarket.agents.llm.prefixes import PrefixIndex
from recmarket.agents.rules import offline_agents
from recmarket.config import RunConfig
from recmarket.data.domain import load_domain
from recmarket.embedding import load_embedder
from recmarket.embedding.similarity import similarity_for
from recmarket.run.estimate import RoleEstimate, Sampled, priced_roles
from recmarket.validity.heldout import domain_files_of, held_outs, in_half
from recmarket.validity.scoring import UserScorer, score_every
from recmarket.vocabulary import ROLES, RoleName

SAMPLE = 12  # held-outs a domain scored to measure the calls of one


@dataclass(frozen=True)
class Counted:
    """A role that counts each call's rendered prompt before its backend answers. It says
    nothing of exact choice chances, as a model does not: the decision is asked."""

    role: RoleName
    inner: Any
    sample: Sampled
    seen: PrefixIndex

    async def __call__(self, inp: Contract, seed: int) -> Any:
        self.sample.add(self.role, render(self.role, inp), self.seen)
        return await self.inner(inp, seed)


def estimate_validation(
    settings: RunConfig,
    data: Path,
    domains: Sequence[str],
    *,
    negatives: Sequence[int] = (9,),
    pairs: int | None = None,
    seed: int = 42,
    half: str = "all",
    sample: int = SAMPLE,
) -> tuple[int, list[RoleEstimate]]:
    """The held-outs ``validate`` would score, and each role's calls, tokens and cost."""
    embedder = load_embedder(settings.embedder)
    agents = offline_agents(embedder, settings.agents, settings.roles)
    counts = Sampled()
    seen = PrefixIndex()
    counted = replace(agents, **{r: Counted(r, getattr(agents, r), counts, seen) for r in ROLES})
    total = played = 0
    for files in domain_files_of(data, domains):
        domain = load_domain(files)
        chosen = [h for h in held_outs(domain, max(negatives), seed).held if in_half(h, half)]
        candidates = tuple(sorted({1 + n for n in negatives}))
        scorer = UserScorer(
            counted, similarity_for(embedder), domain, seed, candidates, pairs=pairs
        )
        asyncio.run(score_every(scorer, chosen[:sample]))
        total, played = total + len(chosen), played + len(chosen[:sample])
    return total, priced_roles(settings, counts, total / max(played, 1))
