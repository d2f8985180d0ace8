"""Semantic closeness of short texts, with every text's vector remembered.

The offline roles judge fit the way a reader does, by meaning rather than shared words:
the cosine of two texts' embeddings under the run's embedder. Titles, categories and needs
recur across the calls of a run (one need is read by every platform and by the ranker, a
catalog's titles by thousands of rankings), so each text is encoded once and kept.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

import numpy as np

from recmarket.embedding.base import Embedder

CACHE_LIMIT = 200_000  # texts kept per embedder (~300 MB at 384 float32 dimensions)


def _unknown(known: dict[str, np.ndarray], texts: list[str]) -> list[str]:
    """The texts not encoded yet, each once, in order."""
    return list(dict.fromkeys(t for t in texts if t not in known))


def _kept(
    known: dict[str, np.ndarray], texts: list[str], encode: Callable[[list[str]], np.ndarray]
) -> np.ndarray:
    """Vectors of the texts from ``known``, encoding those not seen before in one batch."""
    new = _unknown(known, texts)
    if new:
        if len(known) + len(new) > CACHE_LIMIT:  # start afresh, with all of these texts
            known.clear()
            new = _unknown(known, texts)
        known.update(zip(new, encode(new), strict=True))
    return np.array([known[t] for t in texts])


class Similarity:
    """Cosines between texts through one embedder, each text embedded once per process
    (documents and queries apart, unless the embedder encodes both alike)."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder
        self._vectors: dict[str, np.ndarray] = {}
        as_documents = getattr(embedder, "queries_as_documents", False)
        self._queries: dict[str, np.ndarray] = self._vectors if as_documents else {}

    def unknown(self, texts: list[str]) -> list[str]:
        """The texts not encoded yet, each once, in order."""
        return _unknown(self._vectors, texts)

    def vectors(self, texts: list[str]) -> np.ndarray:
        """Unit vectors of the texts, encoding only those not seen before (in one batch)."""
        return _kept(self._vectors, texts, self.embedder.encode)

    def query_vectors(self, texts: list[str]) -> np.ndarray:
        """The texts as retrieval queries (``encode_queries``), each encoded once and kept:
        a user's long-term need recurs in every request they make. With an embedder that
        encodes queries as documents, one vector of a text serves both."""
        return _kept(self._queries, texts, self.embedder.encode_queries)

    def remember(self, texts: list[str], vectors: np.ndarray) -> None:
        """Keep vectors already made by this embedder's ``encode`` (item texts embedded for
        retrieval), so they are not encoded again. A text encoded alone or in a batch gets
        the same vector, so what is remembered never changes a result."""
        if len(self._vectors) + len(texts) <= CACHE_LIMIT:
            self._vectors.update(zip(texts, vectors, strict=True))

    def pair(self, a: str, b: str) -> float:
        """The cosine of two texts, embedding those not seen yet."""
        known = self._vectors
        if a not in known or b not in known:  # the rare miss; known pairs skip the stacking
            first, second = self.vectors([a, b])
            return float(first @ second)
        return float(known[a] @ known[b])


@lru_cache(maxsize=8)
def similarity_for(embedder: Embedder) -> Similarity:
    """One shared cache per embedder, for every role and measure of a process."""
    return Similarity(embedder)


def visible_text(title: str, category: str) -> str:
    """The fields of a candidate every buyer-side role sees, as one text."""
    return f"{title}. {category}"
