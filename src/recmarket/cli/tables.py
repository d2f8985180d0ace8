"""The tables ``run`` prints: the stage-wise funnel per domain, and the LLM ledger."""

from __future__ import annotations

from typing import Any

from rich.table import Table

from recmarket.agents.llm.ledger import Ledger, Usage
from recmarket.analysis.market_measures import MarketMeasure, shown_at
from recmarket.catalogue.policies import families


def shown(measure: MarketMeasure, value: float) -> str:
    """A measure's value as a table shows it: a share as a percent, else two decimals."""
    return f"{value:.1%}" if measure.share else f"{value:.2f}"


def funnel_table(title: str, summary: dict[str, Any]) -> Table:
    """The episode funnel per domain and macro: the episodes, then each measure shown at
    the funnel (present, shortlisted, top-1, purchased, ...) and each family's Top-1
    share."""
    columns = {**summary["domains"], "macro": summary["macro"]}
    table = Table(title=title)
    table.add_column("stage")
    for name in columns:
        table.add_column(name, justify="right")
    table.add_row("episodes", *(f"{c['episodes']:,}" for c in columns.values()))
    for measure in shown_at("funnel"):
        table.add_row(measure.label, *(shown(measure, c[measure.name]) for c in columns.values()))
    for policy in families(summary["macro"]["top1_share_by_policy"]):
        table.add_row(
            f"top-1 share: {policy}",
            *(f"{c['top1_share_by_policy'].get(policy, 0.0):.1%}" for c in columns.values()),
        )
    return table


def ledger_table(ledger: Ledger, spent: float | None) -> Table:
    """The LLM ledger per role and model: calls, cached calls, tokens and cost, with what
    the directory has spent."""
    caption = None if spent is None else f"spent in this run directory so far: ${spent:.4f}"
    table = Table(title="LLM calls, tokens and cost", caption=caption)
    for col in (
        "role",
        "model",
        "calls",
        "from store",
        "prompt tokens",
        "provider-cached (share)",
        "completion tokens",
        "retries",
        "tokens estimated",
        "tiers (flex busy, fallbacks)",
        "cost USD",
    ):
        table.add_column(col, justify="left" if col in ("role", "model") else "right")
    for (role, model), u in sorted(ledger.rows.items()):
        table.add_row(
            role,
            model,
            f"{u.calls:,}",
            f"{u.cached:,}",
            f"{u.prompt_tokens:,}",
            _cached(u),
            f"{u.completion_tokens:,}",
            f"{u.retries:,}",
            f"{u.estimated:,}",
            _tiers(u),
            f"{u.cost:.4f}",
        )
    return table


def _cached(usage: Usage) -> str:
    share = usage.cached_share
    return f"{usage.provider_cached_tokens:,}" + ("" if share is None else f" ({share:.0%})")


def _tiers(usage: Usage) -> str:
    said = ", ".join(f"{tier} {n:,}" for tier, n in sorted(usage.tiers.items()))
    if usage.busy or usage.fallbacks:
        said += f" ({usage.busy:,} busy, {usage.fallbacks:,} fell back)"
    return said or "-"
