"""What a run would cost before anything is spent.

A small sample of each domain's episodes is played with the offline rules (no network, no
store); every role call's input is rendered into the LLM prompt card it would become, and
the calls, prompt tokens (characters / 4) and typical completion tokens are scaled to the
full run and priced with each role's model (``prices``: its config's prices or the bundled
table), at peak and at off-peak rates. The prompt tokens a provider's prefix cache would
serve are those that repeat an earlier prompt's start, in the order the sample made them
(``prefixes``), priced at the cache-hit rate.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from recmarket.agents.llm.cards import render
from recmarket.agents.llm.config import OFFLINE
from recmarket.agents.llm.prefixes import PrefixIndex, prompt_text
from recmarket.agents.llm.prices import prices_for
from recmarket.agents.rules import offline_agents
from recmarket.config import RunConfig
from recmarket.experiments.spec import DEFAULT_SEEDS
from recmarket.run.loaded import embedder_for
from recmarket.run.reproduce import plan
from recmarket.run.rounds import cell_round, prepare
from recmarket.vocabulary import ROLES

CHARS_PER_TOKEN = 4
COMPLETION_TOKENS = {
    "query": 40,
    "need": 70,
    "explain": 80,
    "shortlist": 160,
    "decide": 50,
    "review": 70,
    "update": 50,
}


@dataclass(frozen=True)
class RoleEstimate:
    """What a role's calls would take in a run: calls, tokens, the share of prompt
    characters a prefix cache could serve, and cost."""

    role: str
    model: str
    calls: float
    prompt_tokens: float
    completion_tokens: float
    cost: float  # at peak rates (or the only rates)
    off_peak_cost: float
    cached_tokens: float = 0.0  # prompt tokens a prefix cache would serve


def estimate(cfg: RunConfig, cache_dir: Path, sample: int = 12) -> list[RoleEstimate]:
    """The calls, tokens and cost a run would make, from its first ``sample`` episodes
    played offline with the prompts rendered."""
    embedder = embedder_for(cfg.embedder)
    calls: dict[str, int] = defaultdict(int)
    chars: dict[str, int] = defaultdict(int)
    repeated: dict[str, int] = defaultdict(int)  # characters that repeat a prompt's start
    seen = PrefixIndex()
    played = 0
    for name in cfg.domains:
        prepared = prepare(cfg, name, embedder, cache_dir)
        round_ = cell_round(
            cfg, prepared, offline_agents(embedder, cfg.agents, cfg.roles), embedder
        )
        for request in prepared.requests[:sample]:
            outcome = asyncio.run(round_.play(request))
            played += 1
            for call in outcome.calls:
                messages = render(call.role, call.input)
                calls[call.role] += 1
                chars[call.role] += sum(len(m["content"]) for m in messages)
                repeated[call.role] += seen.add(prompt_text(messages))
    scale = cfg.total_episodes / max(played, 1)
    rows = []
    for role in ROLES:
        model = cfg.llm.model_for(role) if cfg.llm is not None else OFFLINE
        n = calls[role] * scale
        prompt = chars[role] / CHARS_PER_TOKEN * scale
        completion = COMPLETION_TOKENS[role] * n
        spec = cfg.llm.models[model] if cfg.llm is not None and model != OFFLINE else None
        found = prices_for(spec) if spec is not None else None
        cached = min(repeated[role] / CHARS_PER_TOKEN * scale, prompt)
        peak = off_peak = 0.0
        if found is not None:
            tokens = round(prompt), round(completion), round(cached)
            peak = found.peak.cost(*tokens)
            off_peak = (found.off_peak or found.peak).cost(*tokens)
        shown = spec.name if spec is not None else OFFLINE
        rows.append(RoleEstimate(role, shown, n, prompt, completion, peak, off_peak, cached))
    return rows


def price_sources(cfg: RunConfig) -> list[str]:
    """Where the prices of the models a run uses come from, one line a model."""
    if cfg.llm is None:
        return []
    found = []
    for name in sorted(cfg.llm.used()):
        spec = cfg.llm.models[name]
        prices = prices_for(spec)
        said = prices.source if prices is not None else "no prices (counted as $0)"
        found.append(f"{spec.name}: {said}")
    return found


@dataclass(frozen=True)
class CellCost:
    """One cell of a plan with its estimate."""

    experiment: str
    cell: str
    run_dir: str
    episodes: int
    calls: float  # LLM calls only
    prompt_tokens: float
    completion_tokens: float
    cost: float
    off_peak_cost: float


def estimate_plan(
    names: list[str],
    out: Path,
    cache_dir: Path,
    scale: float = 1.0,
    overrides: dict[str, Any] | None = None,
    seeds: int = DEFAULT_SEEDS,
) -> list[CellCost]:
    """Every planned cell of the experiments priced as ``estimate`` prices a run; a cell
    that several experiments share is priced once and listed under each. A cell no LLM
    answers costs nothing and is not played: pricing the offline plan is planning alone."""
    cells, configs = plan(names, out, scale, overrides, seeds)
    priced: dict[str, CellCost] = {}
    for run_dir, cfg in configs.items():
        paid = [r for r in estimate(cfg, cache_dir) if r.model != OFFLINE] if cfg.uses_llm else []
        priced[run_dir] = CellCost(
            "",
            "",
            run_dir,
            cfg.total_episodes,
            sum(r.calls for r in paid),
            sum(r.prompt_tokens for r in paid),
            sum(r.completion_tokens for r in paid),
            sum(r.cost for r in paid),
            sum(r.off_peak_cost for r in paid),
        )
    return [
        replace(priced[str(out / c.run_dir)], experiment=c.experiment, cell=c.cell) for c in cells
    ]
