"""The ranking measures of a held-out's place among its candidates: the top-N measures of
one place, the mean over tied places (a baseline's scores tie where it cannot tell items
apart, and a tie is broken at random), and chance's expected values."""

from __future__ import annotations

import math

import numpy as np


def ranked_values(rank: int) -> dict[str, float]:
    """The top-N measures of the held-out item's 1-based rank among its candidates."""
    return {
        "hr@1": float(rank == 1),
        "hr@3": float(rank <= 3),
        "ndcg@10": 1.0 / math.log2(rank + 1) if rank <= 10 else 0.0,
    }


def tied_values(scores: np.ndarray, pairs: int = 1) -> dict[str, float]:
    """The ranking measures of the first candidate by ``scores`` (higher first), ties
    broken at random: the mean over the tied places; pairwise against each of the next
    ``pairs`` in turn, the mean of those pairs."""
    first, others = scores[0], scores[1:]
    greater = int(np.sum(others > first))
    places = range(1 + greater, 2 + greater + int(np.sum(others == first)))
    found = {m: float(np.mean([ranked_values(r)[m] for r in places])) for m in ranked_values(1)}
    paired = others[:pairs]
    found["pairwise_1to1"] = float(np.mean((first > paired) + 0.5 * (first == paired)))
    return found


def chance_values(candidates: int) -> dict[str, float]:
    """The ranking measures' expected values for a ranking drawn at random."""
    ranks = range(1, candidates + 1)
    mean = {m: float(np.mean([ranked_values(r)[m] for r in ranks])) for m in ranked_values(1)}
    return {"pairwise_1to1": 0.5, **mean, "buy_accuracy_1to1": 0.5}
