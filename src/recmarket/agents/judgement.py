"""Levels on the model's one scale, [0, 1], from what a role can see.

Fit is read the way a careful reader reads a listing against a request: its overall sense
(the cosine of the embedder's vectors, on the scale fixed by ``ScaleParams``: 0 for an
unrelated item of the domain, 1 for the item the request was written from) and whether it
visibly has each thing asked for (the share of the need's terms it shows). Quality is the
average rating on [1, 5] read as [0, 1]. A *merit* level, which claims and experience speak
of, mixes the two.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Protocol

import numpy as np

from recmarket.agents.words import terms
from recmarket.embedding import Embedder
from recmarket.embedding.similarity import Similarity, similarity_for

FITS_KEPT = 20_000  # (need, text) fit levels a judge remembers (read again within an episode)


def clamp(value: float, low: float = 0.0, high: float = 1.0) -> float:
    """``value`` within [low, high], as a float: np.clip's result for one number, without
    its array machinery (a few microseconds, paid several times an episode)."""
    return float(min(max(value, low), high))


class Scale(Protocol):
    """The reference points of the level scale (the offline model's ``ScaleParams``, set
    from the real samples): cosines that read as level 0 and 1, how fit and quality are
    weighed, and what a reader takes off a claim per disclosed limitation."""

    @property
    def fit_zero(self) -> float:
        """The need-to-title cosine that reads as fit 0 (a random item of the domain)."""
        ...

    @property
    def fit_one(self) -> float:
        """The need-to-title cosine that reads as fit 1 (as close as a request's own item gets)."""
        ...

    @property
    def closeness_zero(self) -> float:
        """The cosine of two titles that reads as closeness 0 (unrelated items)."""
        ...

    @property
    def closeness_one(self) -> float:
        """The cosine of two titles that reads as closeness 1 (the same item)."""
        ...

    @property
    def lexical_share(self) -> float:
        """The weight of the need's terms a listing visibly shows, beside the cosine."""
        ...

    @property
    def quality_share(self) -> float:
        """The weight of quality (the rating) beside fit in an item's merit."""
        ...

    @property
    def unknown_rating(self) -> float:
        """The rating taken for an item that has none."""
        ...

    @property
    def disclosure_relief(self) -> float:
        """What a reader takes off a claim for each limitation it discloses."""
        ...

    def __hash__(self) -> int: ...  # a scale keys the process's judge (``Judge.of``)


@dataclass(frozen=True)
class Judge:
    """How well an item serves a need, on the level scale: what the offline roles read
    through their own noise, and what the market measures an episode by (whether the target
    was the best fit, regret), whichever backend answered the roles."""

    similarity: Similarity
    scale: Scale
    # Fit levels already read, by (need, text): the ranker reads the same pool against the
    # same need as the market's measure of the episode did.
    _fits: dict[tuple[str, str], float] = field(
        default_factory=dict, init=False, repr=False, compare=False, hash=False
    )

    @classmethod
    def of(cls, embedder: Embedder, scale: Scale) -> Judge:
        """The process's judge for an embedder and a scale: the market's measures and the
        offline roles read the same fits (a pool's, read ahead for its measure, are the
        ones the ranker reads), and cells that share requests share them, as they share
        the embedder's vectors (``similarity_for``)."""
        return _judge(similarity_for(embedder), scale)

    def fit(self, need: str, texts: list[str]) -> np.ndarray:
        """Fit level of each text for the need: its overall sense (the embedder's cosine on
        the scale's reference points) mixed with the share of the need's terms the text
        visibly shows. Not clipped: an item closer to the need than the typical item a
        request is written from reads above 1, so fits stay ordered (the lexicon clamps a
        level when it is put into words)."""
        known = self._fits
        levels = [known.get((need, t)) for t in texts]
        if None in levels:
            read = self._read(
                [(need, t) for t, level in zip(texts, levels, strict=True) if level is None]
            )
            levels = [
                read[need, t] if level is None else level
                for t, level in zip(texts, levels, strict=True)
            ]
        return np.array(levels)

    def read_ahead(self, pairs: list[tuple[str, str]]) -> None:
        """Remember the fit levels of many (need, text) pairs (a block of episodes' pools),
        read in one pass of array work where ``fit`` would take one per need."""
        self._read([pair for pair in pairs if pair not in self._fits])

    def _read(self, pairs: list[tuple[str, str]]) -> dict[tuple[str, str], float]:
        """Fit levels of the pairs, remembered. Each cosine is summed on its own and each
        level mixed element by element, so a level is the same whatever it is read with."""
        new = list(dict.fromkeys(pairs))
        if not new:
            return {}
        needs = self.similarity.vectors([need for need, _ in new])
        texts = self.similarity.vectors([text for _, text in new])
        shown = np.array([self._shown(need, text) for need, text in new])
        read = dict(zip(new, self._level((texts * needs).sum(axis=1), shown).tolist(), strict=True))
        if len(self._fits) + len(read) > FITS_KEPT:
            self._fits.clear()
        self._fits.update(read)
        return read

    def fit_one(self, need: str, text: str) -> float:
        """``fit`` of a single text, without the array work (a platform reads one item)."""
        return float(self._level(self.similarity.pair(need, text), self._shown(need, text)))

    def _level(self, cosine: Any, shown: Any) -> Any:
        """Sense and visibly shown terms, mixed on the fit scale (arrays or numbers)."""
        s = self.scale
        sense = (cosine - s.fit_zero) / (s.fit_one - s.fit_zero)
        return (1 - s.lexical_share) * sense + s.lexical_share * shown

    @staticmethod
    def _shown(need: str, text: str) -> float:
        wanted = terms(need)
        return len(wanted & terms(text)) / len(wanted) if wanted else 0.0

    def closeness(self, a: str, b: str) -> float:
        """How close one item is to another (titles), 1 for the same item."""
        s = self.scale
        cosine = self.similarity.pair(a, b)
        return clamp((cosine - s.closeness_zero) / (s.closeness_one - s.closeness_zero))

    def quality(self, rating: float | None) -> float:
        """A rating on [0, 1] (1 star: 0, 5 stars: 1); an unrated item reads as the scale's
        ``unknown_rating``."""
        return (min(max(rating if rating is not None else self.scale.unknown_rating, 1), 5) - 1) / 4

    def merit(self, fit: float, rating: float | None) -> float:
        """Fit (read no higher than 1) and quality, weighed: what claims and experience
        speak of."""
        q = self.scale.quality_share
        return (1 - q) * min(max(fit, 0.0), 1.0) + q * self.quality(rating)


@lru_cache(maxsize=8)
def _judge(similarity: Similarity, scale: Scale) -> Judge:
    return Judge(similarity, scale)
