"""How much a domain looks like real Amazon data where the offline model is sensitive to it.

The offline roles read titles (for the product kind and attributes), review texts (for the
use a buyer had in mind) and histories (for what a user already owns). These measures put a
domain's titles, reviews and histories beside the real samples': the README's table comes
from ``scripts/measure_data_realism.py``, which prints them for both.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np
from scipy import sparse

from recmarket.data.domain import Domain
from recmarket.data.episodes import Episode
from recmarket.data.items import TITLE_HEAD, TITLE_WORD, product_kind


@dataclass(frozen=True)
class DataProfile:
    """Measures of how real a domain looks (title lengths and segments, distinct words,
    near-duplicates, repeated review texts), to compare a generated domain with the real
    samples."""

    items: int
    title_words_median: float
    title_words_iqr: tuple[float, float]
    title_segments_mean: float  # parts separated by commas, dashes, bars, parentheses
    distinct_review_texts: float  # distinct review texts per review text (nan: no texts)
    kinds: int
    top_kind_share: float  # items in the largest kind, as a share of all items
    kinds_with_one_item: float  # share of kinds with a single item (the long tail)
    target_kind_in_history: float  # episodes whose target's kind the history already has


NEAR_DUPLICATE = 0.8  # token-set Jaccard from which two titles read as the same listing


def title_tokens(title: str) -> frozenset[str]:
    """A title's distinct words, lower-cased."""
    return frozenset(w.lower() for w in TITLE_WORD.findall(title))


def distinct_tokens_per_item(titles: list[str]) -> float:
    """Distinct title words over the titles, per title: how much of a title is its own
    (brand, model, specifics) rather than vocabulary every listing shares. It falls as a
    catalog grows, so compare catalogs of one size (``subsample``)."""
    vocabulary = set().union(*(title_tokens(t) for t in titles)) if titles else set()
    return len(vocabulary) / len(titles) if titles else float("nan")


def near_duplicates_per_1000(titles: list[str], threshold: float = NEAR_DUPLICATE) -> float:
    """Pairs of titles whose word sets overlap by at least ``threshold`` (Jaccard), per
    thousand titles: listings a reader cannot tell apart by their titles."""
    sets = [title_tokens(t) for t in titles]
    index = {w: i for i, w in enumerate(sorted(set().union(*sets)))} if sets else {}
    rows = [i for i, s in enumerate(sets) for _ in s]
    cols = [index[w] for s in sets for w in s]
    if not rows:
        return 0.0
    x = sparse.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(sets), len(index)))
    shared = (x @ x.T).toarray()
    sizes = np.asarray(x.sum(axis=1)).ravel()
    union = sizes[:, None] + sizes[None, :] - shared
    close = np.triu(shared >= threshold * np.maximum(union, 1), k=1)
    return float(close.sum()) * 1000 / len(titles)


def subsample(titles: list[str], n: int, seed: int = 0) -> list[str]:
    """``n`` titles drawn without replacement (all of them when there are fewer)."""
    if len(titles) <= n:
        return list(titles)
    picks = np.random.default_rng(seed).choice(len(titles), size=n, replace=False)
    return [titles[i] for i in sorted(picks)]


def profile(domain: Domain, episodes: list[Episode]) -> DataProfile:
    """The domain's realism measures, over its items and the episodes' reviews."""
    titles = [it.title for it in domain.items]
    lengths = np.array([len(t.split()) for t in titles])
    segments = np.array([len([s for s in TITLE_HEAD.split(t) if s and s.strip()]) for t in titles])
    texts = [i.review_text for e in episodes for i in (*e.history, e.target) if i.review_text]
    counts = Counter(texts)
    kinds = Counter(product_kind(t) for t in titles)
    in_history = [
        product_kind(e.target.title) in {product_kind(h.title) for h in e.history} for e in episodes
    ]
    return DataProfile(
        items=len(titles),
        title_words_median=float(np.median(lengths)),
        title_words_iqr=(float(np.percentile(lengths, 25)), float(np.percentile(lengths, 75))),
        title_segments_mean=float(segments.mean()),
        distinct_review_texts=len(counts) / len(texts) if texts else float("nan"),
        kinds=len(kinds),
        top_kind_share=max(kinds.values()) / len(titles),
        kinds_with_one_item=sum(c == 1 for c in kinds.values()) / len(kinds),
        target_kind_in_history=float(np.mean(in_history)) if in_history else 0.0,
    )
