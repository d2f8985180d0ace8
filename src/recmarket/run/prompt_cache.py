"""How much of each role's prompt a provider's prompt cache can hold.

A provider caches a prompt's start once it has seen it, from a minimum length on (OpenAI:
1,024 tokens; Gemini 3: 4,096; DeepSeek: every 64-token unit), and only an exact start.
What every call of a role shares, from the first character on, is the part any cache can
serve; the cards put it first (system line, task, rules, output schema), and what varies
(the need, the items, the history) last. ``cache_reach`` measures that shared start on the
prompts a cell would send, rendered from a few offline episodes, against the provider's
threshold where the price table knows it, and says how much stable text the start would
need to reach it.
"""

from __future__ import annotations

import asyncio
import os
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from recmarket.agents.llm.api import CHARS_PER_TOKEN
from recmarket.agents.llm.cards import render
from recmarket.agents.llm.prefixes import prompt_text
from recmarket.agents.rules import offline_agents
from recmarket.config import RunConfig
from recmarket.run.loaded import embedder_for
from recmarket.run.rounds import cell_round, prepare

# Thresholds of the providers the price table does not hold, for reference.
REFERENCE = "OpenAI caches from 1,024 tokens, Gemini 3 from 4,096"


def shared_start(texts: list[str]) -> str:
    """The characters every text starts with: what a prefix cache compares."""
    return os.path.commonprefix(texts)  # noqa: RUF071 (characters, not path parts)


def probe_cell() -> RunConfig:
    """A small LocalRep cell of the default market's first domain, one seat stuffing its
    listings: every role plays there, the copywriter too."""
    first = RunConfig().domains[0]
    return RunConfig.model_validate(
        {
            "condition": "local-rep",
            "domains": [first],
            "episodes": {"requests": 6, "users_per_profile": 1},
            "market": {"copy": {"P2": {"copy": "copy-stuffing"}}},
        }
    )


@dataclass(frozen=True)
class CacheReach:
    """A role's prompts: how many were looked at, the tokens all of them start with, their
    mean length, and the provider's caching threshold (None: not known)."""

    role: str
    calls: int
    stable_tokens: int
    mean_tokens: float
    threshold: int | None

    @property
    def reaches(self) -> bool | None:
        """Whether the shared start is long enough to be cached (None: unknown)."""
        return None if self.threshold is None else self.stable_tokens >= self.threshold

    @property
    def padding(self) -> int:
        """Tokens of stable text the start would need to reach the threshold."""
        return max(0, (self.threshold or 0) - self.stable_tokens)


def role_prompts(cfg: RunConfig, cache_dir: Path, sample: int = 6) -> dict[str, list[str]]:
    """Each role's prompts over the first ``sample`` episodes of every domain of ``cfg``,
    played with the offline rules and rendered as the LLM would be sent them."""
    embedder = embedder_for(cfg.embedder)
    prompts: dict[str, list[str]] = defaultdict(list)
    for name in cfg.domains:
        prepared = prepare(cfg, name, embedder, cache_dir)
        round_ = cell_round(cfg, prepared, offline_agents(embedder, cfg.agents), embedder)
        for request in prepared.requests[:sample]:
            for call in asyncio.run(round_.play(request)).calls:
                prompts[call.role].append(prompt_text(render(call.role, call.input)))
    return prompts


def cache_reach(
    cfg: RunConfig, cache_dir: Path, threshold: int | None, sample: int = 6
) -> list[CacheReach]:
    """Each role's shared prompt start (``role_prompts``) against ``threshold``."""
    return [
        CacheReach(
            role,
            len(texts),
            len(shared_start(texts)) // CHARS_PER_TOKEN,
            sum(map(len, texts)) / len(texts) / CHARS_PER_TOKEN,
            threshold,
        )
        for role, texts in role_prompts(cfg, cache_dir, sample).items()
    ]
