"""The similarity cache stays bounded and keeps answering past its limit."""

import numpy as np
import pytest

from recmarket.embedding import similarity
from recmarket.embedding.similarity import Similarity


class Letters:
    """Encodes a text as a unit vector on its first letter's axis, counting what it encodes."""

    fingerprint = "letters:1"

    def __init__(self) -> None:
        self.encoded: list[str] = []

    def encode(self, texts: list[str]) -> np.ndarray:
        self.encoded += texts
        return np.eye(26, dtype=np.float32)[[ord(t[0]) - ord("a") for t in texts]]


def test_texts_known_before_the_cache_is_cleared_are_still_answered(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A long run passes the limit with a batch that mixes known and new texts (found by a
    300,000-episode run, which stopped on the known one)."""
    monkeypatch.setattr(similarity, "CACHE_LIMIT", 4)
    embedder = Letters()
    cache = Similarity(embedder)
    cache.vectors(["apple", "berry", "cherry"])
    vectors = cache.vectors(["apple", "date", "elder"])  # 3 known + 2 new > 4: cleared
    assert vectors.argmax(axis=1).tolist() == [0, 3, 4]
    assert len(cache.unknown(["apple", "date", "elder", "berry"])) == 1  # berry was dropped
    assert embedder.encoded[-3:] == ["apple", "date", "elder"]


def test_queries_are_encoded_once_as_queries() -> None:
    class Asked(Letters):
        def encode_queries(self, texts: list[str]) -> np.ndarray:
            return -self.encode(texts)

    embedder = Asked()
    cache = Similarity(embedder)  # type: ignore[arg-type]
    first = cache.query_vectors(["apple", "berry", "apple"])
    again = cache.query_vectors(["berry", "cherry"])
    assert embedder.encoded == ["apple", "berry", "cherry"]
    assert first[0][0] == -1.0 and np.array_equal(again[0], first[1])
    assert cache.vectors(["apple"])[0][0] == 1.0  # a document vector is another thing


def test_an_embedder_whose_queries_are_documents_encodes_a_text_once() -> None:
    class Same(Letters):
        queries_as_documents = True

        def encode_queries(self, texts: list[str]) -> np.ndarray:
            return self.encode(texts)

    embedder = Same()
    cache = Similarity(embedder)  # type: ignore[arg-type]
    cache.vectors(["apple", "berry"])
    cache.query_vectors(["berry", "cherry"])
    assert embedder.encoded == ["apple", "berry", "cherry"]
