"""Whether any belief could make the target the Top-1: the chain's ceiling, per episode.

LocalRep can only raise target Top-1 by moving belief in the families' claims: a record acts
through the share of a claim's distance from the evidence the ranker believes (the offline
ranker's rule, ``agents.rules.agent.RuleRanker``). So for every pool the market measures,
with the noiseless judged fit ``target_fit`` reads, whether the target is the Top-1 at
each point of a grid of beliefs, one belief per paper family:

    value = judged fit + belief[family] x (claim - fit as words carry it).

Over a NoRep arm's episodes the share of targets ranked first at each point gives the range
of target Top-1 that any reputation design could reach in those pools through belief alone
(``report/chain_table.py``): where that range is narrow, a chain cannot be expressed, and a
flat contrast says nothing about records. A policy outside the paper's three families keeps
the grid's middle belief. Where the pool does not hold the target, no point ranks it first.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

import numpy as np

from recmarket.agents.judgement import Judge
from recmarket.catalogue.policies import PAPER_POLICIES
from recmarket.data.domain import Domain
from recmarket.embedding.similarity import visible_text
from recmarket.market.outcome import Outcome

GRID = (0.0, 0.25, 0.5, 0.75, 1.0)  # beliefs per family: none, a quarter ... all of a claim
# Every point of the grid, one belief per family (PAPER_POLICIES' order), the first
# family's fastest: point k is bit k of an episode's mask.
POINTS = np.array(list(itertools.product(GRID, repeat=len(PAPER_POLICIES))))[:, ::-1]
MIDDLE = GRID[len(GRID) // 2]
# How far an explanation's claim lies from a judged fit (the offline ranker's reading,
# agents.rules.lexicon.claim_distance, handed in by the run: the market knows no backend).
ClaimDistance = Callable[[str, float], float]


def target_top1_mask(
    outcome: Outcome, domain: Domain, judge: Judge, claim_distance: ClaimDistance
) -> str | None:
    """The grid points at which the target is the pool's Top-1, as a hexadecimal bit mask
    (bit k: ``POINTS[k]``); "0" where the target is not pooled, None where the episode has
    no need to judge the pool by."""
    if outcome.need is None or not outcome.pool:
        return None
    if all(p.item_index != outcome.target for p in outcome.pool):
        return "0"
    views = [domain.items[p.item_index].evidence for p in outcome.pool]
    fits = judge.fit(outcome.need.current_need, [visible_text(v.title, v.category) for v in views])
    distance = np.array(
        [claim_distance(p.explanation, float(f)) for p, f in zip(outcome.pool, fits, strict=True)]
    )
    beliefs = np.column_stack(
        [
            POINTS[:, PAPER_POLICIES.index(p.policy)]
            if p.policy in PAPER_POLICIES
            else np.full(len(POINTS), MIDDLE)
            for p in outcome.pool
        ]
    )
    values = fits[None, :] + beliefs * distance[None, :]
    top = np.array([outcome.pool[i].item_index for i in values.argmax(axis=1)])
    bits = np.flatnonzero(top == outcome.target)
    return format(sum(1 << int(k) for k in bits), "x")


def mask_bits(mask: str | None) -> np.ndarray:
    """A stored mask as one 0/1 per grid point (all 0 for None: nothing to rank first)."""
    value = int(mask, 16) if mask else 0
    return np.array([(value >> k) & 1 for k in range(len(POINTS))], dtype=float)
