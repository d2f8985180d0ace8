"""Real Amazon Reviews'23 samples re-shaped into the official pair of raw files.

The public bitrecs samples (``../shared/data/amazon23/bitrecs``) are JSON arrays of review
rows, each with its item's metadata nested inside. Written out as ``{name}.jsonl`` and
``meta_{name}.jsonl.gz`` they load like any downloaded domain, so a slice of real data can
run through the whole pipeline and measure what the offline model's scales rest on.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

BITRECS_SLICES = {
    "Office_Products": "bitrecs/amazon_office_sample_5000.json",
    "Amazon_Fashion": "bitrecs/amazon_fashion_sample_5000.json",
}


MISSING_META = "[metadata not found]"  # the samples' placeholder for an item without meta


def _jsonl(rows: list[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in rows).encode()


def reshape_bitrecs(sample: Path, out: Path, name: str) -> Path:
    """Write one bitrecs sample as the official pair in ``out``, every review field kept."""
    rows = json.loads(sample.read_text())
    metas: dict[str, dict[str, Any]] = {}
    for row in rows:
        m = row.pop("metadata")
        if m["title"] == MISSING_META:  # no listing: its reviews count as without meta
            continue
        metas.setdefault(
            row["parent_asin"],
            {
                "parent_asin": row["parent_asin"],
                "title": m["title"],
                "price": m["price"],
                "main_category": m["main_category"],
                "store": m["store"],
                "description": [],
                "features": [],
                "categories": [],
            },
        )
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{name}.jsonl").write_bytes(_jsonl(rows))
    (out / f"meta_{name}.jsonl.gz").write_bytes(gzip.compress(_jsonl(list(metas.values()))))
    return out


def real_slice(samples: Path, out: Path) -> list[str]:
    """Every bitrecs sample under ``samples`` as a domain in ``out``; the domain names."""
    for name, relative in BITRECS_SLICES.items():
        reshape_bitrecs(samples / relative, out, name)
    return list(BITRECS_SLICES)
