"""Deterministic generator of synthetic Amazon Reviews'23 domains in the official raw format.

The bundled demo domains are made by this module (``scripts/make_demo_data.py``); the
benchmarks use it for large review files, the tests for tiny ones. The data is synthetic but
coherent: items (``demo_listings``) have a product type, a kind, a brand, attributes and a
latent quality that shows in their average rating; each user has a few favourite product
types and preferred attribute values, so histories concentrate on those types, and ratings
follow quality and fit. Review lines are written grouped by user, newest first, timestamps
in milliseconds, like the real files; some descriptions and category lists are empty and a
few reviewed items have no meta.
"""

from __future__ import annotations

import gzip
import io
import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import numpy as np

from recmarket.data.demo_listings import (
    DemoItem,
    make_items,
    meta_record,
    product_types,
    random_code,
)
from recmarket.data.demo_vocabulary import USES
from recmarket.streams import Stream, rng

_START_MS = 1_420_070_400_000  # 2015-01-01
_SPAN_MS = 8 * 365 * 86_400_000
_DAY_MS = 86_400_000
# Share of a user's purchases from their favourite types. Set so that the share of targets
# whose kind the history already has is near the real samples' (scripts/measure_data_realism.py).
FAVOURITE_SHARE = 0.25

# Review sentences by sentiment; a review draws an opening, an aspect, sometimes a use, a
# time and a closing, so that texts vary the way real ones do (almost every real review
# text is unique).
_OPENINGS = {
    "high": (
        "Exactly what I wanted.",
        "Really happy with this {name}.",
        "Great {name}, no complaints.",
        "Love it.",
        "This {name} exceeded my expectations.",
        "Solid purchase.",
        "Five stars from me.",
        "Very pleased.",
    ),
    "mid": (
        "It's an okay {name}.",
        "Decent, but not great.",
        "Mixed feelings about this one.",
        "Does the job.",
        "Fine for the price, I guess.",
        "Not bad, not amazing.",
    ),
    "low": (
        "Disappointed.",
        "Returned it.",
        "Would not buy again.",
        "Not worth it.",
        "This {name} let me down.",
        "Save your money.",
    ),
}
_ASPECTS = {
    "high": (
        "The {value} {dim} is spot on and it feels well made.",
        "{Value} works great and setup took minutes.",
        "The {dim} ({value}) is exactly as described.",
        "Build quality is excellent and the {value} {dim} suits me.",
        "I was worried about the {dim}, but {value} turned out perfect.",
    ),
    "mid": (
        "The {value} {dim} is fine, but it feels a bit cheaper than I expected.",
        "The {dim} is not quite what I hoped.",
        "{Value} is okay, though the finish could be better.",
        "It works, but the {dim} took some getting used to.",
    ),
    "low": (
        "The {value} {dim} was not as described in my experience.",
        "The {dim} failed after a short while.",
        "{Value} was the wrong choice for me and the quality is poor.",
        "It arrived with a problem with the {dim}.",
    ),
}
_USE_SENTENCES = (
    "Bought it for {use}.",
    "I use it mostly for {use}.",
    "Got this for {use}.",
    "Perfect for {use}.",
    "Needed something for {use}.",
)
_TIMES = ("After {n} weeks of use,", "{n} months in,", "Used it {n} times so far and", "")
_TIME_ENDINGS = {
    "high": "it still holds up.",
    "mid": "it is holding up so-so.",
    "low": "it is already showing wear.",
}
_CLOSINGS = {
    "high": ("Would buy again.", "Highly recommend.", "Great value.", ""),
    "mid": ("Might look elsewhere next time.", "Three stars.", ""),
    "low": ("One star.", "Avoid.", ""),
}
_REVIEW_TITLE = {
    "high": ("Love it", "Great {name}", "Five stars", "Perfect for {use}", "Works great"),
    "mid": ("It's okay", "Decent but not great", "Mixed feelings", "Average"),
    "low": ("Not for me", "Disappointed", "Returned it", "Poor quality"),
}


def _pick(gen: np.random.Generator, options: tuple[str, ...]) -> str:
    return str(options[int(gen.integers(len(options)))])


def review_text(bucket: str, words: dict[str, str], gen: np.random.Generator) -> str:
    """A demo review's text for a rating bucket, with the listing's words filled in."""
    words = {**words, "Value": words["value"][:1].upper() + words["value"][1:]}
    parts = [_pick(gen, _OPENINGS[bucket]), _pick(gen, _ASPECTS[bucket])]
    if gen.random() < 0.6:
        parts.append(_pick(gen, _USE_SENTENCES))
    time = _pick(gen, _TIMES)
    if time:
        parts.append(f"{time.format(n=int(gen.integers(2, 13)))} {_TIME_ENDINGS[bucket]}")
    parts.append(_pick(gen, _CLOSINGS[bucket]))
    return " ".join(p for p in parts if p).format(**words)


def review_record(
    domain: str, item: DemoItem, user_id: str, rating: float, stamp: int, gen: np.random.Generator
) -> dict[str, Any]:
    """A demo review as the official review files hold one."""
    ptype = product_types(domain)[item.ptype]
    bucket = "high" if rating >= 4 else "mid" if rating >= 3 else "low"
    k = int(gen.integers(len(ptype.dimensions)))
    words = {
        "use": str(gen.choice(USES[domain])),
        "value": item.values[k],
        "dim": ptype.dimensions[k],
        "name": item.kind(ptype),
    }
    return {
        "rating": rating,
        "title": _pick(gen, _REVIEW_TITLE[bucket]).format(**words),
        "text": review_text(bucket, words, gen),
        "images": [],
        "asin": item.asin,
        "parent_asin": item.asin,
        "user_id": user_id,
        "timestamp": stamp,
        "helpful_vote": int(gen.poisson(0.5)),
        "verified_purchase": bool(gen.random() < 0.9),
    }


@dataclass(frozen=True)
class _TypePool:
    """The items of one product type, as arrays for fast choice."""

    index: np.ndarray  # positions in the domain's item list
    quality: np.ndarray
    values: np.ndarray  # (items, dimensions) attribute values


def _pools(items: list[DemoItem], n_types: int) -> list[_TypePool]:
    pools = []
    for t in range(n_types):
        index = np.array([i for i, it in enumerate(items) if it.ptype == t])
        pools.append(
            _TypePool(
                index,
                np.array([items[i].quality for i in index]),
                np.array([items[i].values for i in index]),
            )
        )
    return pools


def user_reviews(
    domain: str,
    items: list[DemoItem],
    pools: list[_TypePool],
    n: int,
    gen: np.random.Generator,
    orphans: list[DemoItem],
) -> Iterator[dict[str, Any]]:
    """One user's reviews, newest first: most purchases come from 1-3 favourite types, items
    are chosen by quality and by fit to the user's preferred attribute values, and ratings
    follow quality and fit."""
    user_id = random_code(gen, "A", 27)
    favourites = gen.choice(len(pools), size=int(gen.integers(1, 4)), replace=False)
    weights = gen.dirichlet(np.full(len(favourites), 1.5))
    taste = {int(t): pools[t].values[int(gen.integers(len(pools[t].index)))] for t in favourites}
    stamp = _START_MS + int(gen.random() * _SPAN_MS)
    rows = []
    for _ in range(n):
        favourite = gen.random() < FAVOURITE_SHARE
        t = int(
            favourites[gen.choice(len(favourites), p=weights)]
            if favourite
            else gen.integers(len(pools))
        )
        pool = pools[t]
        fit = (
            (pool.values == taste[t]).mean(axis=1) if t in taste else np.full(len(pool.index), 0.5)
        )
        logits = 1.0 * pool.quality + 3.0 * fit
        p = np.exp(logits - logits.max())
        k = int(gen.choice(len(p), p=p / p.sum()))
        item = items[int(pool.index[k])]
        if orphans and gen.random() < 0.01:
            item = orphans[int(gen.integers(len(orphans)))]
        score = 3.5 + 0.7 * item.quality + 1.2 * fit[k] - (0 if favourite else 0.6)
        rating = float(np.clip(round(score + gen.normal(0, 0.8)), 1, 5))
        stamp += int(gen.exponential(45) * _DAY_MS) + 1000
        rows.append(review_record(domain, item, user_id, rating, stamp, gen))
    yield from reversed(rows)


@contextmanager
def _writer(path: Path) -> Iterator[IO[str]]:
    """Gzip with mtime 0 and no file name, so the same input gives the same bytes."""
    with (
        path.open("wb") as raw,
        gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="", compresslevel=9) as gz,
        io.TextIOWrapper(gz, encoding="utf-8", newline="\n") as text,
    ):
        yield text


def write_domain(
    domain: str,
    out: Path,
    *,
    seed: int = 0,
    per_type: int = 140,
    n_users: int = 1700,
    inactive_share: float = 0.1,
) -> tuple[Path, Path]:
    """Write ``{domain}.jsonl.gz`` and ``meta_{domain}.jsonl.gz`` into ``out``."""
    gen = rng(seed, domain, Stream.DEMO_DATA)
    items = make_items(domain, per_type, gen)
    orphans = make_items(domain, 1, gen)[:5]  # reviewed, but with no meta record
    pools = _pools(items, len(product_types(domain)))
    out.mkdir(parents=True, exist_ok=True)
    meta_path, review_path = out / f"meta_{domain}.jsonl.gz", out / f"{domain}.jsonl.gz"
    with _writer(meta_path) as fh:
        for item in items:
            fh.write(json.dumps(meta_record(domain, item, gen)) + "\n")
    with _writer(review_path) as fh:
        for _ in range(n_users):
            inactive = gen.random() < inactive_share
            n = int(gen.integers(1, 5)) if inactive else 5 + int(gen.negative_binomial(2, 0.25))
            for record in user_reviews(domain, items, pools, n, gen, orphans):
                fh.write(json.dumps(record) + "\n")
    return review_path, meta_path
