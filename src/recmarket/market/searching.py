"""Stage 2's search: which items the platforms propose to a block of episodes.

Each need is scored against the universe on its own (one matrix-vector product: a row of a
matrix product would round differently with the rows it is computed with), and the
platforms' draws over those scores are taken for the whole block in a few array operations
instead of a few dozen per episode. Nothing about an episode's proposals depends on the
block it was searched in, so records are the same at any batch size, worker count or
resume point.
"""

from __future__ import annotations

import numpy as np

from recmarket.market.build import DomainMarket
from recmarket.market.outcome import Outcome
from recmarket.market.seats import Strategies

# Episodes searched together: their scores are held at once (64 rows of the universe).
SEARCH_BLOCK = 64

# One proposal to make: (platform, item, whether inclusion forced it, its seed unit).
Job = tuple[int, int, bool, int]


def retrieve(
    market: DomainMarket,
    strategies: Strategies,
    user_agent: bool,
    searches: list[tuple[Outcome, np.ndarray]],
) -> list[list[Job]]:
    """Each outcome's proposals to make, searching with its need's vector. Under a user
    agent every platform present proposes its candidate; under Platform-Centric the
    entered platform proposes its J items."""
    retriever = market.retriever
    # An explanation's seed unit is platform * stride + rank: a stride of 100, as every
    # stored run has it, widened once J reaches it so that no two explanations of the
    # entered platform's J items share a seed.
    j = market.config.j
    stride = max(100, j)
    jobs: list[list[Job]] = []
    for start in range(0, len(searches), SEARCH_BLOCK):
        chunk = searches[start : start + SEARCH_BLOCK]
        block = [o for o, _ in chunk]
        scores = np.stack([retriever.scores(vector) for _, vector in chunk])
        draws = [market.draws(o.request) for o in block]
        if not user_agent:
            for o, need_scores, drawn in zip(block, scores, draws, strict=True):
                platform, items, forced = retriever.platform_centric(
                    need_scores, o.target, drawn, j
                )
                jobs.append(
                    [
                        (platform, item, forced and item == o.target, stride * platform + rank)
                        for rank, item in enumerate(items)
                    ]
                )
            continue
        pools = retriever.user_agent_pools(
            scores, [o.target for o in block], draws, [market.present(o.request) for o in block]
        )
        jobs.extend(
            [
                (r.platform, r.candidate, r.forced, stride * r.platform)
                for r in pool
                if r.candidate >= 0 and strategies.present(o.request, r.platform)
            ]
            for o, pool in zip(block, pools, strict=True)
        )
    return jobs
