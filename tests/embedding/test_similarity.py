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
