"""The one resampling engine every interval of recmarket is drawn with: units resampled
within strata, n - 1 of a stratum's n at each pick (Davison and Hinkley 1997, section 3.7,
after McCarthy and Snowden 1985: the plain bootstrap's variance is short of the sampling
variance by (n - 1) / n), after a first stage that draws whole replicates (seeds) with
replacement where a stratum belongs to one.

- The market's intervals (``analysis.bootstrap``): strata are (seed, domain), units are the
  clusters an episode depends on (requests, users, a domain's whole history), two stages.
- The prediction-powered estimate (``analysis.ppi``): strata are (seed, domain), units are
  the pilot's, one stage (the seeds are held, as the pilot is drawn within each), Rao and
  Wu's rescaling applied by the caller.
- The validity card (``validity.card``, ``validity.differences``): one stratum of people,
  each holding all of their own held-outs, one stage.

Units of identical parts are one category, so a pick of m units over a stratum is one
multinomial draw over its categories: exact, and cheap for the 0/1 parts most measures
have. ``resampled`` yields, per chunk of draws, each stratum's categories and how often each
was drawn; a caller sums their parts (``sums``) or, for a statistic that is not a function
of sums (a rank correlation), reads the drawn units themselves (``person_interval``).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from typing import Any, TypeVar

import numpy as np

CHUNK = 5_000  # draws per block (bounds memory when units are many and distinct)
K = TypeVar("K", bound=Hashable)
Unit = TypeVar("Unit")


def categories(units: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A stratum's distinct unit values (first axis) and how many units hold each."""
    levels, counts = np.unique(units.reshape(len(units), -1), axis=0, return_counts=True)
    return levels, counts


def resampled(
    strata: Mapping[K, np.ndarray],
    draws: int,
    gen: np.random.Generator,
    *,
    replicate: Callable[[K], Hashable] | None = None,
    chunk: int = CHUNK,
) -> Iterator[tuple[int, dict[K, tuple[np.ndarray, np.ndarray]]]]:
    """Per chunk of draws, its size and, by stratum, the stratum's categories (distinct unit
    values) with how often each was drawn in each draw of the chunk (size x categories).

    With ``replicate`` (the replicate each stratum belongs to), each draw first picks the
    replicates with replacement, and a replicate picked k times draws k (n - 1) units of
    each of its strata; without, every stratum draws n - 1 of its n units in every draw.
    A stratum needs two units at least (one has nothing to resample)."""
    found = {s: categories(u) for s, u in strata.items()}
    if any(counts.sum() < 2 for _, counts in found.values()):
        raise ValueError("a stratum holds fewer than two units: nothing to resample")
    replicates = sorted({replicate(s) for s in strata}, key=str) if replicate else []
    for start in range(0, draws, chunk):
        size = min(chunk, draws - start)
        if replicate is not None:
            r = len(replicates)
            picks = gen.multinomial(r, [1 / r] * r, size)
        out = {}
        for stratum, (levels, counts) in found.items():
            taken = counts.sum() - 1
            if replicate is not None:
                times = picks[:, replicates.index(replicate(stratum))] * taken
            else:
                times = np.full(size, taken)
            out[stratum] = (levels, gen.multinomial(times, counts / counts.sum()))
        yield size, out


def sums(levels: np.ndarray, drawn: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """The drawn units' summed parts in each draw (size, *shape)."""
    return (drawn @ levels).reshape(len(drawn), *shape)


def percentile(drawn: np.ndarray, level: float) -> tuple[float, float]:
    """The ``level`` percentile interval of the finite draws (NaN ends where none is)."""
    finite = np.asarray(drawn, dtype=float)
    finite = finite[np.isfinite(finite)]
    if not len(finite):
        return float("nan"), float("nan")
    tail = 100 * (1 - level) / 2
    low, high = np.percentile(finite, [tail, 100 - tail])
    return float(low), float(high)


def person_interval(
    units: Sequence[Unit],
    statistic: Callable[[Sequence[Unit]], float],
    *,
    seed: int,
    draws: int,
    level: float = 0.95,
) -> tuple[float, float]:
    """The ``level`` percentile interval of ``statistic`` over ``draws`` resamples of the
    units (people, each holding all of their own observations), drawn by ``resampled`` from
    a generator seeded with ``seed``; resamples where the statistic is undefined (NaN) are
    left out. NaN ends for fewer than two units."""
    if len(units) < 2:
        return float("nan"), float("nan")
    index = np.arange(len(units))[:, None]  # each unit its own category
    values: list[float] = []
    for _, drawn in resampled({0: index}, draws, np.random.default_rng(seed)):
        levels, counts = drawn[0]
        order = levels[:, 0]
        for row in counts:
            values.append(statistic([units[i] for i in np.repeat(order, row)]))
    return percentile(np.asarray(values), level)


def sums_interval(
    parts: np.ndarray,
    statistic: Callable[[np.ndarray], np.ndarray],
    *,
    seed: int,
    draws: int,
    level: float = 0.95,
) -> tuple[float, float]:
    """The percentile interval of a statistic of summed parts (``statistic`` maps each
    draw's totals, draws x parts, to one value a draw) over units that each hold their
    parts (a person's sums over their held-outs, and their count), resampled as
    ``resampled`` does, every draw at once."""
    found: list[Any] = []
    for _, drawn in resampled({0: parts}, draws, np.random.default_rng(seed)):
        levels, picked = drawn[0]
        with np.errstate(invalid="ignore", divide="ignore"):
            found.append(statistic(sums(levels, picked, (parts.shape[1],))))
    return percentile(np.concatenate(found), level)


def mean_interval(
    sums_: np.ndarray, counts: np.ndarray, *, seed: int, draws: int, level: float = 0.95
) -> tuple[float, float]:
    """The percentile interval of a mean over units that each hold a sum of values and their
    count (a person's held-outs): the mean of the drawn units' values, all their values
    together."""
    return sums_interval(
        np.stack([sums_, counts], axis=-1),
        lambda total: total[:, 0] / total[:, 1],
        seed=seed,
        draws=draws,
        level=level,
    )
