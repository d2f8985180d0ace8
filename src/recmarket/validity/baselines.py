"""The ladder of baselines a user model must climb, each an object of ``BASELINES`` that
scores a held-out's candidates from what a recommender of its kind would read: the
person's history and the category's data, never the held-out's own rating or review.

- ``popularity``: the item's reviews in the loaded data dated before the held-out (the
  listing's ``rating_number`` is counted when the data was crawled, after the held-out;
  the slices carry none); "no counts" where no candidate of the category has one.
- ``centroid``: closeness of the candidate's visible text to the mean of the history
  titles' embeddings.
- ``recent_centroid``: the same mean weighted by recency, halved every
  RECENT_HALF_LIFE purchases back (a tenth of the 20-interaction history window: set
  before any card was read, and never fitted, as a baseline's parameters are not).
- ``bm25``: Okapi BM25 of the history titles as the query against the candidate's visible
  text, its document frequencies from the category's items (k1 1.2, b 0.75: the values of
  Robertson and Zaragoza 2009 that Lucene and Anserini default to).
- ``cooccurrence``: how many other people reviewed both the candidate and an item of the
  history, summed over the history; "too few people" below COOCCURRENCE_MIN_PEOPLE.
- ``sequential``: SASRec trained on the category's review sequences (``sequential``, an
  optional extra); "not fitted" without the extra or below its people.

Chance is analytic (``ranking.chance_values``). Ties are broken at random: a baseline's
value at a tie is the mean over the tied places.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np

from recmarket.validity.category_data import WORD, CategoryData
from recmarket.validity.heldout import HeldOut
from recmarket.validity.sequential import Sequential

RECENT_HALF_LIFE = 2.0
BM25_K1, BM25_B = 1.2, 0.75
COOCCURRENCE_MIN_PEOPLE = 50  # fewer people co-review too little to rank by


class Baseline(Protocol):
    """A baseline scorer: higher scores rank first."""

    @property
    def name(self) -> str:
        """The scorer's name on the card."""
        ...

    def note(self, data: CategoryData) -> str:
        """Why the baseline says nothing in this category ("" where it does)."""
        ...

    def scores(self, data: CategoryData, held: HeldOut, items: Sequence[int]) -> np.ndarray:
        """The candidates' scores."""
        ...


@runtime_checkable
class Trained(Protocol):
    """A baseline that learns from the category before it scores."""

    def fit(self, data: CategoryData) -> None:
        """Train once a category (a second call does nothing)."""
        ...


@dataclass(frozen=True)
class Popularity:
    """The candidate's reviews dated before the held-out."""

    name: str = "popularity"

    def note(self, data: CategoryData) -> str:
        return "" if max(map(len, data.earlier_reviews), default=0) >= 2 else "no counts"

    def scores(self, data: CategoryData, held: HeldOut, items: Sequence[int]) -> np.ndarray:
        when = held.episode.target.timestamp
        times = data.earlier_reviews
        counts = np.array([np.searchsorted(times[i], when) for i in items], dtype=float)
        target = held.episode.target.item_index
        own = np.array([held.repeats * (i == target) for i in items], dtype=float)
        return counts - own  # the person's own earlier reviews of the held-out are no crowd


@dataclass(frozen=True)
class Centroid:
    """Closeness to the history titles' embedding centroid, each purchase weighted by
    ``half_life`` purchases back (None: all alike)."""

    name: str = "centroid"
    half_life: float | None = None

    def note(self, data: CategoryData) -> str:
        return ""

    def scores(self, data: CategoryData, held: HeldOut, items: Sequence[int]) -> np.ndarray:
        history = [h.title for h in held.episode.history]
        vectors = data.similarity.vectors(history)
        weights = np.ones(len(history))
        if self.half_life is not None:
            weights = 0.5 ** (np.arange(len(history))[::-1] / self.half_life)
        centroid = weights @ vectors / weights.sum()
        return data.similarity.vectors([data.text(i) for i in items]) @ centroid


@dataclass(frozen=True)
class BM25:
    """Okapi BM25 of the history titles against the candidates' visible texts."""

    name: str = "bm25"

    def note(self, data: CategoryData) -> str:
        return ""

    def scores(self, data: CategoryData, held: HeldOut, items: Sequence[int]) -> np.ndarray:
        df, mean_length, n = data.document_frequency
        query = Counter(w for h in held.episode.history for w in WORD.findall(h.title.lower()))
        found = []
        for item in items:
            words = WORD.findall(data.text(item).lower())
            tf = Counter(words)
            norm = BM25_K1 * (1 - BM25_B + BM25_B * len(words) / max(mean_length, 1e-9))
            found.append(
                sum(
                    times
                    * math.log(1 + (n - df[w] + 0.5) / (df[w] + 0.5))
                    * tf[w]
                    * (BM25_K1 + 1)
                    / (tf[w] + norm)
                    for w, times in query.items()
                    if tf[w]
                )
            )
        return np.array(found, dtype=float)


@dataclass(frozen=True)
class CoOccurrence:
    """Other people's reviews of both the candidate and a history item, summed over the
    history's distinct items (the person's own co-reviews taken out)."""

    name: str = "cooccurrence"

    def note(self, data: CategoryData) -> str:
        return "" if data.people >= COOCCURRENCE_MIN_PEOPLE else "too few people"

    def scores(self, data: CategoryData, held: HeldOut, items: Sequence[int]) -> np.ndarray:
        history = sorted({h.item_index for h in held.episode.history})
        counts = np.asarray(data.co_reviews[history][:, list(items)].sum(axis=0)).ravel()
        target = held.episode.target.item_index  # the only candidate the person reviewed
        return counts - np.array([len(history) * (i == target) for i in items], dtype=float)


BASELINES: dict[str, Baseline] = {
    b.name: b
    for b in (
        Popularity(),
        Centroid(),
        Centroid("recent_centroid", RECENT_HALF_LIFE),
        BM25(),
        CoOccurrence(),
        Sequential(),
    )
}
