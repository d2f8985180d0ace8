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
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from recmarket.agents.llm.cards import render
from recmarket.agents.llm.config import BATCH, FLEX, OFFLINE, ModelConfig
from recmarket.agents.llm.ledger import Usage
from recmarket.agents.llm.prefixes import PrefixIndex, prompt_text
from recmarket.agents.llm.prices import Prices, hosts_pricing, prices_for, provider_at
from recmarket.agents.llm.prompts import Message
from recmarket.agents.rules import offline_agents
from recmarket.config import RunConfig
from recmarket.experiments.spec import DEFAULT_SEEDS
from recmarket.run.loaded import embedder_for
from recmarket.run.rounds import batchable, cell_round, prepare, streams
from recmarket.run.study_plan import plan
from recmarket.vocabulary import ROLES

CHARS_PER_TOKEN = 4
COMPLETION_TOKENS = {
    "query": 40,
    "need": 70,
    "explain": 80,
    "copywriter": 250,  # a title and a description much like the item's own
    "shortlist": 160,
    "decide": 50,
    "review": 70,
    "update": 50,
}


# The ways a call can be bought, side by side: the standard rate with every prompt token
# fresh; with the prompt tokens a prefix cache would serve at its rate; off-peak hours;
# the flex tier; a batch job (priced with no cache hits: a provider's cache of minutes does
# not survive a queue of hours). None where the provider does not sell it, or (batch)
# where the cell's calls wait on one another.
OPTIONS = ("live", "cached-input", "off-peak", "flex", "batch")


@dataclass(frozen=True)
class RoleEstimate:
    """What a role's calls would take in a run: calls, tokens, the share of prompt
    characters a prefix cache could serve, and cost."""

    role: str
    model: str
    calls: float
    prompt_tokens: float
    completion_tokens: float
    cost: float  # at peak rates (or the only rates), cache hits at their rate
    off_peak_cost: float
    cached_tokens: float = 0.0  # prompt tokens a prefix cache would serve
    options: dict[str, float | None] = field(default_factory=dict)  # USD by OPTIONS


@dataclass(frozen=True)
class CellEstimate:
    """A run's roles, and the shape of its calls a plan's wall time needs: the longest
    chain of episodes that wait on one another, and the rounds of calls in one episode."""

    roles: list[RoleEstimate]
    longest_stream: int
    rounds: int
    batchable: bool
    concurrency: int


def option_costs(
    prices: Prices, tokens: tuple[int, int, int], batch: bool
) -> dict[str, float | None]:
    """USD of (prompt, completion, cache-served) tokens bought each way (``OPTIONS``)."""
    fresh = tokens[:2]
    return {
        "live": prices.peak.cost(*fresh),
        "cached-input": prices.peak.cost(*tokens),
        "off-peak": prices.off_peak.cost(*tokens) if prices.off_peak else None,
        "flex": prices.tiers[FLEX].cost(*tokens) if FLEX in prices.tiers else None,
        "batch": prices.tiers[BATCH].cost(*fresh) if batch and BATCH in prices.tiers else None,
    }


def estimate(cfg: RunConfig, cache_dir: Path, sample: int = 12) -> list[RoleEstimate]:
    """The calls, tokens and cost a run would make, from its first ``sample`` episodes
    played offline with the prompts rendered."""
    return cell_estimate(cfg, cache_dir, sample).roles


def cell_estimate(
    cfg: RunConfig, cache_dir: Path, sample: int = 12, pilot: Path | None = None
) -> CellEstimate:
    """``estimate``'s roles with the shape of the run's calls (for ``plan``). With a
    ``pilot`` (a call store holding the configured models' answers to the sample's calls:
    a run of the same settings' first requests), the sample is played by those answers
    instead of the offline rules, so its calls, re-asks, prompts (which quote earlier
    answers) and completions are the model's own; a call it does not hold stops the
    estimate (``ReplayMiss``), naming it."""
    embedder = embedder_for(cfg.embedder)
    counted, seen = Sampled(), PrefixIndex()
    played = longest = rounds = 0
    agents, replayed = offline_agents(embedder, cfg.agents, cfg.roles), None
    if pilot is not None and cfg.llm is not None and cfg.uses_llm:
        from recmarket.agents.llm.backend import LLMBackend  # the openai client

        replayed = LLMBackend(cfg.llm, [pilot], replay=True)
        agents = replayed.agents(agents)
    try:
        for name in cfg.domains:
            prepared = prepare(cfg, name, embedder, cache_dir)
            longest = max([longest, *(len(s) for s in streams(cfg, prepared.requests))])
            round_ = cell_round(cfg, prepared, agents, embedder)
            for request in prepared.requests[:sample]:
                outcome = asyncio.run(round_.play(request))
                played += 1
                rounds = max(rounds, len({call.role for call in outcome.calls}))
                for call in outcome.calls:
                    counted.add(call.role, render(call.role, call.input), seen)
    finally:
        if replayed is not None:
            replayed.close()
    measured = _measured(replayed.ledger.rows) if replayed is not None else {}
    scale = cfg.total_episodes / max(played, 1)
    batch = batchable(cfg) and _sells_batches(cfg)
    rows = priced_roles(cfg, counted, scale, batch, measured)
    used = [cfg.llm.models[m] for m in cfg.llm.used()] if cfg.llm is not None else []
    concurrency = min((m.concurrency for m in used), default=1)
    return CellEstimate(rows, longest, rounds, batch, concurrency)


@dataclass(frozen=True)
class Sampled:
    """A sample's calls per role, their prompts' characters, and the characters that
    repeat an earlier prompt's start (what a prefix cache would serve)."""

    calls: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    chars: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    repeated: dict[str, int] = field(default_factory=lambda: defaultdict(int))

    def add(self, role: str, messages: list[Message], seen: PrefixIndex) -> None:
        """Count one call of ``role`` rendered as ``messages``."""
        self.calls[role] += 1
        self.chars[role] += sum(len(m["content"]) for m in messages)
        self.repeated[role] += seen.add(prompt_text(messages))


def priced_roles(
    cfg: RunConfig,
    sample: Sampled,
    scale: float,
    batch: bool = False,
    measured: dict[str, tuple[int, int, int]] | None = None,
) -> list[RoleEstimate]:
    """Each role's calls, tokens and cost in the whole job: the sample's scaled by
    ``scale`` (or the ``measured`` calls and tokens of a pilot's replay), priced with the
    model that answers the role (nothing for the offline rules)."""
    rows = []
    for role in ROLES:
        model = cfg.llm.model_for(role) if cfg.llm is not None else OFFLINE
        if measured and role in measured:  # the pilot's own calls (re-asks too) and tokens
            n, prompt, completion = (value * scale for value in measured[role])
        else:
            n = sample.calls.get(role, 0) * scale
            prompt = sample.chars.get(role, 0) / CHARS_PER_TOKEN * scale
            completion = COMPLETION_TOKENS[role] * n
        spec = cfg.llm.models[model] if cfg.llm is not None and model != OFFLINE else None
        found = prices_for(spec) if spec is not None else None
        cached = min(sample.repeated.get(role, 0) / CHARS_PER_TOKEN * scale, prompt)
        options: dict[str, float | None] = dict.fromkeys(OPTIONS)
        if found is not None:
            options = option_costs(found, (round(prompt), round(completion), round(cached)), batch)
        peak, off_peak = options["cached-input"] or 0.0, options["off-peak"]
        shown = spec.name if spec is not None else OFFLINE
        rows.append(
            RoleEstimate(
                role,
                shown,
                n,
                prompt,
                completion,
                peak,
                peak if off_peak is None else off_peak,
                cached,
                options,
            )
        )
    return rows


def _measured(rows: dict[tuple[str, str], Usage]) -> dict[str, tuple[int, int, int]]:
    """Calls, prompt and completion tokens per role, from a replayed pilot's ledger."""
    out: dict[str, tuple[int, int, int]] = {}
    for (role, _), usage in rows.items():
        calls, prompt, completion = out.get(role, (0, 0, 0))
        out[role] = (
            calls + usage.calls,
            prompt + usage.prompt_tokens,
            completion + usage.completion_tokens,
        )
    return out


def _sells_batches(cfg: RunConfig) -> bool:
    """Whether every model the run uses is at a provider with batch jobs (as far as the
    price table knows: an endpoint it does not know is taken at its prices)."""
    if cfg.llm is None:
        return False
    for name in cfg.llm.used():
        known = provider_at(cfg.llm.models[name])
        if known is not None and not known[1].batch_api:
            return False
    return True


def price_sources(cfg: RunConfig) -> list[str]:
    """Where the prices of the models a run uses come from, one line a model."""
    if cfg.llm is None:
        return []
    found = []
    for name in sorted(cfg.llm.used()):
        spec = cfg.llm.models[name]
        prices = prices_for(spec)
        found.append(f"{spec.name}: {prices.source if prices else _unpriced(spec)}")
    return found


def _unpriced(spec: ModelConfig) -> str:
    """Why a model has no price, and where the table would price it: a hosted model's name
    sent to another endpoint (most often OpenAI's, where no --llm-base-url was given)."""
    host = urlsplit(spec.base_url).hostname
    said = f"no prices at {host} (counted as $0)"
    elsewhere = hosts_pricing(spec.name)
    if elsewhere:
        said += (
            f"; the price table prices {spec.name} at {', '.join(elsewhere)}: give "
            f"--llm-base-url https://{elsewhere[0]}/v1 (or its base_url) to run it there"
        )
    return said + "; or set its input and output prices"


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
    options: dict[str, float | None] = field(default_factory=dict)  # USD by OPTIONS
    longest_stream: int = 0  # episodes in the longest chain that waits on itself
    rounds: int = 0  # rounds of calls in one episode
    batchable: bool = False
    concurrency: int = 1


def _summed(rows: list[RoleEstimate], option: str) -> float | None:
    costs = [r.options.get(option) for r in rows]
    return None if not rows or any(c is None for c in costs) else sum(c or 0.0 for c in costs)


def cell_cost(shape: CellEstimate | None, episodes: int, run_dir: str) -> CellCost:
    """A cell's paid roles summed (None: no model answers it, nothing to pay)."""
    paid = [r for r in shape.roles if r.model != OFFLINE] if shape is not None else []
    return CellCost(
        "",
        "",
        run_dir,
        episodes,
        sum(r.calls for r in paid),
        sum(r.prompt_tokens for r in paid),
        sum(r.completion_tokens for r in paid),
        sum(r.cost for r in paid),
        sum(r.off_peak_cost for r in paid),
        {option: _summed(paid, option) for option in OPTIONS},
        shape.longest_stream if shape else 0,
        shape.rounds if shape else 0,
        shape.batchable if shape else False,
        shape.concurrency if shape else 1,
    )


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
    priced = {
        run_dir: cell_cost(
            cell_estimate(cfg, cache_dir) if cfg.uses_llm else None, cfg.total_episodes, run_dir
        )
        for run_dir, cfg in configs.items()
    }
    return [
        replace(priced[str(out / c.run_dir)], experiment=c.experiment, cell=c.cell) for c in cells
    ]
