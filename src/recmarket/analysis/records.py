"""Whether a reputation treatment could act: how many records each platform holds in each
memory set, and which cells of an experiment came out identical.

A mechanism that reads more than the last W records (beta, decay) differs from the window
only for a platform whose history in some memory set passed W records; a scope differs from
another only where pooling gave a platform records sooner. Reporting both keeps a figure from
drawing as four results what is one.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

from recmarket.analysis.bootstrap import Row
from recmarket.catalogue.scopes import SCOPES
from recmarket.config import RunConfig
from recmarket.experiments.units import CLUSTERS
from recmarket.market.compositions import platform_ids


def records_per_history(rows: Sequence[Row], config: RunConfig) -> np.ndarray:
    """Records each platform ended with in each memory set (replicate and domain apart),
    zeros included: one count per (memory set, platform)."""
    owner = CLUSTERS[SCOPES.get(config.reputation_scope).unit]
    ids = platform_ids(config.market.n_platforms + len(config.market.entrants))
    counts: Counter[tuple[Any, ...]] = Counter()
    sets = set()
    for r in rows:
        memory = (r.get("replicate"), r["domain"], owner(r))
        sets.add(memory)
        if r.get("rep_label") and r.get("rep_platform"):
            counts[(*memory, r["rep_platform"])] += 1
    return np.array(
        [counts[(*memory, p)] for memory in sorted(sets, key=str) for p in ids],
        dtype=int,
    )


def record_distribution(rows: Sequence[Row], config: RunConfig) -> dict[str, Any]:
    """The distribution of records per platform per memory set, and the share of histories
    that passed the window (only those can tell window from beta or decay)."""
    counts = records_per_history(rows, config)
    window = config.market.memory_window
    if not len(counts):
        return {"histories": 0}
    return {
        "histories": len(counts),
        "median": round(float(np.median(counts)), 1),
        "p90": round(float(np.percentile(counts, 90)), 1),
        "max": int(counts.max()),
        "window": window,
        "over_window": round(float(np.mean(counts > window)), 3),
    }


def fingerprint(rows: Sequence[Row]) -> str:
    """A digest of a cell's episode records (what every role did, in order), blind to the
    cell's name and settings, so two cells compare equal exactly when their episodes do."""
    digest = hashlib.sha256()
    for r in sorted(rows, key=lambda r: (str(r.get("replicate")), r["domain"], r["ord"])):
        digest.update(json.dumps(dict(r), sort_keys=True, default=str).encode())
    return digest.hexdigest()


def identical_groups(cells: dict[str, Sequence[Row]]) -> list[list[str]]:
    """Groups of two or more cell names whose episode records are identical."""
    by_print: dict[str, list[str]] = {}
    for name, rows in cells.items():
        by_print.setdefault(fingerprint(rows), []).append(name)
    return [names for names in by_print.values() if len(names) > 1]
