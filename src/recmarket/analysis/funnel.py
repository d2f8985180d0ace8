"""The stage-wise funnel of a run: per domain, and macro (the unweighted domain mean)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from recmarket.catalogue.policies import families

RATES = {
    "target_present": "target_present",
    "target_best_fit": "target_best_fit",
    "target_shortlisted": "target_shortlisted",
    "target_top1": "target_top1",
    "target_purchased": "target_purchased",
    "purchase_rate": "any_purchase",
    "no_purchase_rate": "no_purchase",
    "off_target_purchase_rate": "off_target_purchase",
    "same_item_top1_rate": "same_item_top1",
    "forced_inclusion_rate": "forced_inclusion",
}
MEANS = {"mean_pool_size": "pool_size", "mean_target_copies": "target_copies"}


def _shares(values: list[str | None]) -> dict[str, float]:
    counts = Counter(v for v in values if v is not None)
    total = sum(counts.values())
    return {p: counts[p] / total if total else 0.0 for p in families(counts)}


def summarise(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The funnel of one domain's episode rows."""
    summary: dict[str, Any] = {"episodes": len(rows)}
    for name, column in {**RATES, **MEANS}.items():
        summary[name] = float(np.mean([r[column] for r in rows])) if rows else 0.0
    summary["top1_share_by_policy"] = _shares([r["top1_policy"] for r in rows])
    summary["purchase_share_by_policy"] = _shares([r["purchased_policy"] for r in rows])
    labels = Counter(r["rep_label"] for r in rows if r["rep_label"])
    summary["rep_labels"] = {k: labels[k] for k in ("high", "mixed", "low")}
    return summary


def macro(domains: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Unweighted mean of the domain summaries, key by key (episodes: the total)."""
    parts = list(domains.values())
    out: dict[str, Any] = {"episodes": sum(p["episodes"] for p in parts)}
    for key in (*RATES, *MEANS):
        out[key] = float(np.mean([p[key] for p in parts]))
    for key in ("top1_share_by_policy", "purchase_share_by_policy"):
        present = families(p for d in parts for p in d[key])
        out[key] = {p: float(np.mean([d[key].get(p, 0.0) for d in parts])) for p in present}
    out["rep_labels"] = {
        k: sum(p["rep_labels"][k] for p in parts) for k in ("high", "mixed", "low")
    }
    return out


def funnel(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """{"domains": {name: summary}, "macro": summary} for a run's episode rows."""
    names = sorted({r["domain"] for r in rows})
    domains = {n: summarise([r for r in rows if r["domain"] == n]) for n in names}
    return {"domains": domains, "macro": macro(domains) if domains else summarise([])}
