"""A ranker of your own in the loop: the shortlist role replaced, every other role offline.

    python examples/custom_ranker.py [OUT_DIR]

From Python, ``run(cfg, out, agents=...)`` takes the replaced bundle. To choose it in
settings instead (``[roles] shortlist = "records-only"``, also in experiment specs that
``recmarket reproduce`` runs in worker processes), a package registers ``RECORDS_ONLY``
under the ``recmarket.roles`` entry-point group.

The ranker sees exactly what the paper's user agent sees (``ShortlistInput``: the query,
the structured need, the shuffled candidates and, under reputation, each platform's
records) and answers K ranked platform ids with a reason each (``Shortlist``). This one
trusts records alone: it ranks platforms by the share of their records labelled "high",
ties in the order shown, so it shows what reputation does with no reading of the texts.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from recmarket.agents.contracts import RankedItem, Shortlist, ShortlistInput
from recmarket.agents.rules import offline_agents
from recmarket.api import RoleBackend
from recmarket.config import EpisodeConfig, RunConfig
from recmarket.embedding import load_embedder
from recmarket.run.runner import RunResult, run


class RecordsOnlyParams(BaseModel):
    """Its one parameter, which settings give as ``params = { unknown = 0.5 }``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    unknown: float = Field(0.0, ge=0.0, le=1.0, description="the share held up with no record")


class RecordsOnlyRanker:
    """Ranks by the share of a platform's records that say its claims held up; a platform
    with no record counts as ``unknown``."""

    def __init__(self, unknown: float = 0.0) -> None:
        self.unknown = unknown

    async def __call__(self, inp: ShortlistInput, seed: int) -> Shortlist:
        histories = inp.histories or {}

        def held_up(platform: str) -> float:
            records = histories.get(platform, ())
            if not records:
                return self.unknown
            return sum(r.claim_reliability == "high" for r in records) / len(records)

        order = sorted(inp.candidates, key=lambda c: -held_up(c.platform_id))
        return Shortlist(
            ranked=tuple(
                RankedItem(
                    platform_id=c.platform_id, reason=f"held up {held_up(c.platform_id):.0%}"
                )
                for c in order[: inp.k]
            )
        )


# The backend by name, built in whichever process plays the episodes.
RECORDS_ONLY = RoleBackend(
    "records-only",
    "shortlist",
    lambda embedder, offline, params: RecordsOnlyRanker(params.unknown),
    RecordsOnlyParams,
)


def main(out: Path, requests: int = 120) -> RunResult:
    cfg = RunConfig(condition="local-rep", episodes=EpisodeConfig(requests=requests))
    agents = offline_agents(load_embedder(cfg.embedder), cfg.agents)
    return run(cfg, out, agents=replace(agents, shortlist=RecordsOnlyRanker()))


if __name__ == "__main__":
    result = main(Path(sys.argv[1] if len(sys.argv) > 1 else "runs/records-only"))
    print(result.store.path)
