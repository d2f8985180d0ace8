"""What the ladder of baselines reads of one category (``baselines``, ``sequential``):
built once a category and shared by its held-outs, each part computed the first time a
baseline asks for it."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
from scipy import sparse

from recmarket.data.domain import Domain
from recmarket.embedding.similarity import Similarity, visible_text

WORD = re.compile(r"[a-z0-9]+")


@dataclass
class CategoryData:
    """What the baselines read of one category, built once and shared by its held-outs."""

    domain: Domain
    similarity: Similarity
    seed: int = 0  # the card's: a baseline that trains draws from it (``Stream.BASELINE``)
    fits: dict[str, Any] = field(default_factory=dict)  # a trained baseline's model, by name

    def text(self, item: int) -> str:
        """The candidate's visible text, as the ranker sees it."""
        evidence = self.domain.items[item].evidence
        return visible_text(evidence.title, evidence.category)

    @cached_property
    def earlier_reviews(self) -> list[np.ndarray]:
        """Per item, the sorted times of its reviews in the loaded data."""
        times: list[list[int]] = [[] for _ in self.domain.items]
        for item, when in zip(
            self.domain.item_index.tolist(),
            self.domain.interactions.timestamp.tolist(),
            strict=True,
        ):
            times[item].append(when)
        return [np.sort(np.array(t, dtype=np.int64)) for t in times]

    @cached_property
    def document_frequency(self) -> tuple[Counter[str], float, int]:
        """Each word's count of the category's items holding it, their mean length, and
        how many items there are."""
        df: Counter[str] = Counter()
        total = 0
        for item in range(len(self.domain.items)):
            words = WORD.findall(self.text(item).lower())
            df.update(set(words))
            total += len(words)
        n = len(self.domain.items)
        return df, total / max(n, 1), n

    @cached_property
    def people(self) -> int:
        """How many people the loaded data has."""
        return len(np.unique(self.domain.interactions.user))

    @cached_property
    def co_reviews(self) -> sparse.csr_matrix:
        """Items x items: how many people reviewed both (each person once per item)."""
        users = np.unique(self.domain.interactions.user, return_inverse=True)[1]
        by = sparse.csr_matrix(
            (np.ones(len(users)), (users, self.domain.item_index)),
            shape=(int(users.max()) + 1, len(self.domain.items)),
        )
        by.data[:] = 1.0  # a person's repeat reviews of one item count once
        return (by.T @ by).tocsr()
