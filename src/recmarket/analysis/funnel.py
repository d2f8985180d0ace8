"""The stage-wise funnel of a run: per domain, and macro (the unweighted domain mean).

Its rows are the registered measures shown at the funnel (``shown_at("funnel")``), each
under its name, as point values: the share of episodes at each stage (the target present,
shortlisted, ranked first, bought), the purchase outcomes and the mean pool size and target
copies; a measure another package registers for the funnel joins them. Beside them: each
policy family's share of Top-1 places and of purchases, and the records' labels.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from recmarket.analysis.bootstrap import point
from recmarket.analysis.market_measures import shown_at
from recmarket.catalogue.policies import families
from recmarket.config import RunConfig

# The funnel's former keys, which ``run --json`` still writes beside the measures' names
# until recmarket 0.2 (scripts that read them keep working for one release)
FORMER_NAMES = {
    "target_purchased": "target_purchase",
    "purchase_rate": "any_purchase",
    "no_purchase_rate": "no_purchase",
    "off_target_purchase_rate": "off_target_purchase",
    "same_item_top1_rate": "same_item_top1",
    "forced_inclusion_rate": "forced_inclusion",
    "mean_pool_size": "pool_size",
    "mean_target_copies": "target_copies",
}


def _shares(values: list[str | None]) -> dict[str, float]:
    counts = Counter(v for v in values if v is not None)
    total = sum(counts.values())
    return {p: counts[p] / total if total else 0.0 for p in families(counts)}


def summarise(rows: Sequence[Mapping[str, Any]], cfg: RunConfig | None = None) -> dict[str, Any]:
    """The funnel of one domain's episode rows (``cfg``: the settings a measure that reads
    them is made for; the built-in funnel measures read none)."""
    summary: dict[str, Any] = {"episodes": len(rows)}
    for measure in shown_at("funnel"):
        value = point(rows, measure.make(cfg)) if rows else 0.0
        summary[measure.name] = 0.0 if np.isnan(value) else value
    summary["top1_share_by_policy"] = _shares([r["top1_policy"] for r in rows])
    summary["purchase_share_by_policy"] = _shares([r["purchased_policy"] for r in rows])
    labels = Counter(r["rep_label"] for r in rows if r["rep_label"])
    summary["rep_labels"] = {k: labels[k] for k in ("high", "mixed", "low")}
    return summary


def macro(domains: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Unweighted mean of the domain summaries, key by key (episodes: the total)."""
    parts = list(domains.values())
    out: dict[str, Any] = {"episodes": sum(p["episodes"] for p in parts)}
    for name in (m.name for m in shown_at("funnel")):
        out[name] = float(np.mean([p[name] for p in parts]))
    for key in ("top1_share_by_policy", "purchase_share_by_policy"):
        present = families(p for d in parts for p in d[key])
        out[key] = {p: float(np.mean([d[key].get(p, 0.0) for d in parts])) for p in present}
    out["rep_labels"] = {
        k: sum(p["rep_labels"][k] for p in parts) for k in ("high", "mixed", "low")
    }
    return out


def funnel(rows: Sequence[Mapping[str, Any]], cfg: RunConfig | None = None) -> dict[str, Any]:
    """{"domains": {name: summary}, "macro": summary} for a run's episode rows."""
    names = sorted({r["domain"] for r in rows})
    domains = {n: summarise([r for r in rows if r["domain"] == n], cfg) for n in names}
    return {"domains": domains, "macro": macro(domains) if domains else summarise([], cfg)}


def with_former_names(summary: dict[str, Any]) -> dict[str, Any]:
    """A funnel summary with its former keys beside the measures' names (``run --json``)."""
    return summary | {old: summary[new] for old, new in FORMER_NAMES.items() if new in summary}
