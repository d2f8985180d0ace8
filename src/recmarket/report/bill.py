"""What an LLM run cost beside what ``estimate`` said it would, role by role.

The bill is read from the run's own call store: every call it sent (not those a store
answered), priced at the tier that billed it and the hour it was made, as the ledger
priced it. The estimate is the one ``recmarket estimate`` prints for the same settings,
bought the way the run bought its calls (batch jobs, the flex tier, or live with cache
hits), so the two can be set side by side after a run whose ledger has long gone.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime
from pathlib import Path
from typing import Any

from recmarket.agents.llm.config import FLEX, STANDARD
from recmarket.agents.llm.prices import price
from recmarket.config import RunConfig
from recmarket.run.estimate import cell_estimate
from recmarket.run.rounds import batchable
from recmarket.run.store import RunStore


def bought_as(cfg: RunConfig) -> str:
    """How the run bought its calls, as the estimate names the ways (``OPTIONS``)."""
    llm = cfg.llm
    if llm is None:
        return "cached-input"
    if llm.mode == "batch" and batchable(cfg):
        return "batch"
    used = [llm.models[name] for name in llm.used()]
    return "flex" if used and all(m.service_tier == FLEX for m in used) else "cached-input"


def billed(run_dir: Path, cfg: RunConfig) -> dict[str, tuple[int, float]]:
    """Calls sent and USD, by role, from the run's call store (no LLM calls: empty)."""
    if cfg.llm is None:
        return {}
    models = {(m.name, m.base_url): m for m in cfg.llm.models.values()}
    out: dict[str, list[float]] = defaultdict(lambda: [0, 0.0])
    with RunStore.read(run_dir) as store:
        present = {row[1] for row in store.db.execute("PRAGMA table_info(llm_calls)")}
        if "tier" not in present:  # a store from before tiers were kept: standard
            return {}
        rows = store.db.execute(
            "SELECT role, model, base_url, prompt_tokens, completion_tokens, cached_tokens, "
            "created, tier FROM llm_calls WHERE source = 'network'"
        ).fetchall()
    for role, model, url, prompt, completion, cached, created, tier in rows:
        spec = models.get((model, url))
        if spec is None:
            continue
        when = datetime.fromisoformat(created)
        out[role][0] += 1
        out[role][1] += price(spec, prompt, completion, cached, when, tier or STANDARD)
    return {role: (int(n), cost) for role, (n, cost) in out.items()}


def bill_rows(run_dir: Path, cfg: RunConfig, cache_dir: Path) -> list[dict[str, Any]]:
    """Per role the estimate (calls, USD) beside the bill, and their ratio."""
    bill = billed(run_dir, cfg)
    if not bill:
        return []
    way = bought_as(cfg)
    rows = []
    for row in cell_estimate(cfg, cache_dir).roles:
        if row.role not in bill:
            continue
        calls, cost = bill[row.role]
        estimate = row.options.get(way) or 0.0
        rows.append(
            {
                "role": row.role,
                "bought as": way,
                "calls estimated": f"{row.calls:,.0f}",
                "calls sent": f"{calls:,}",
                "USD estimated": f"{estimate:.4f}",
                "USD billed": f"{cost:.4f}",
                "billed / estimated": f"{cost / estimate:.2f}" if estimate else "-",
            }
        )
    return rows
