"""The classical defences of reputation research, as mechanisms that weigh each record by
its writer (``catalogue.writers`` says what a history set knows of them).

Each keeps the last W records of a platform, as the paper's window does, and shows them
weighted; a record its defence discounts entirely keeps the least weight a record may have
(``FLOOR``), so it is shown and counts for next to nothing. At ``strength`` 0 (the filter's
``q`` 0) a defence is switched off and returns no weights: its records equal the window's.
They are built for shared histories, where strangers write; under ``local`` every record of
a set has one writer, the set's user.

- **brs-filter** (Whitby, Josang and Indulska 2004, the Beta Reputation System's iterated
  filtering): the shown records' score is the mean of Beta(1 + positive, 1 + negative) over
  the writers still counted; a writer whose own records' Beta distribution puts that score
  below its ``q`` quantile or above its ``1 - q`` quantile is dropped, and the score made
  again until no writer is dropped (the last writer is never dropped). ``q`` = 0.01, the
  smallest quantile the paper studies, drops only writers far from the consensus.
- **credibility** (after TRAVOS, Teacy et al. 2006): a writer's weight is the mean of
  Beta(1 + agreement, 1 + disagreement) of its earlier records with what others wrote later
  about the same platform: 1/2 for a writer never judged.
- **influence-limiter** (after Resnick and Sami 2007): a writer moves the records' reading
  by at most its reputation, which starts at ``initial`` (0.1: a writer with no track record
  moves a tenth of what an established one does) and grows by ``gain`` (0.1: ten net
  confirmations make a full writer) for each of its records confirmed by a later one,
  falling for each contradicted, within [0, 1].
- **seeded-trust** (after EigenTrust, Kamvar, Schlosser and Garcia-Molina 2003): writers
  trust each other by how their records about the same platforms agree; trust flows from the
  first ``seeds`` users who write in the set (trusted in advance, 3: a few known-good peers)
  by EigenTrust's iteration with weight ``alpha`` (0.15) on them; a writer's weight is its
  trust relative to an even share, capped at 1. A writer nobody trusted agrees with counts
  for next to nothing, an honest newcomer included.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import ClassVar

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from recmarket.catalogue.mechanisms import MECHANISMS, RecordFacts, Window
from recmarket.catalogue.writers import VALUE, WriterLedger

FLOOR = 1e-3  # the weight of a record its defence discounts entirely


class WriterParams(BaseModel):
    """How far a writer's standing moves its records' weight (0: not at all, the window)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    strength: float = Field(
        1.0, ge=0.0, le=1.0, description="weight = 1 - strength x (1 - standing); 0: off"
    )


class LimiterParams(WriterParams):
    """The influence limiter's starting reputation and its step."""

    initial: float = Field(0.1, gt=0.0, le=1.0, description="a new writer's reputation")
    gain: float = Field(0.1, gt=0.0, le=1.0, description="reputation per net confirmation")


class TrustParams(WriterParams):
    """Seeded trust: how many first writers are trusted in advance, and their weight."""

    seeds: int = Field(3, ge=1, le=100, description="first users of a set trusted in advance")
    alpha: float = Field(0.15, gt=0.0, lt=1.0, description="weight of the trusted writers")


class FilterParams(BaseModel):
    """The iterated filter's quantile."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    q: float = Field(0.01, ge=0.0, lt=0.5, description="quantile a writer's Beta must hold; 0: off")


Standing = Callable[[str], float]


@dataclass(frozen=True)
class WriterWeighing(Window):
    """A window whose records weigh as their writers stand: ``standing`` in [0, 1]."""

    reads_writers: ClassVar[bool] = True
    Params: type[BaseModel] = WriterParams

    def weigh_with(
        self,
        records: Sequence[RecordFacts],
        now: int,
        params: BaseModel,
        writers: WriterLedger | None,
    ) -> tuple[float, ...] | None:
        assert isinstance(params, WriterParams)
        if self.switched_off(params) or writers is None:
            return None
        standing = self.standing(writers, params)
        return tuple(
            1.0
            if r.writer == "penalty"
            else max(FLOOR, 1.0 - params.strength * (1.0 - standing(r.author)))
            for r in records
        )

    def standing(self, writers: WriterLedger, params: BaseModel) -> Standing:
        """Each writer's standing in [0, 1]."""
        raise NotImplementedError

    def switched_off(self, params: BaseModel) -> bool:
        assert isinstance(params, WriterParams)
        return params.strength == 0.0


@dataclass(frozen=True)
class Credibility(WriterWeighing):
    """Writers weighed by their agreement with what came after (TRAVOS-like)."""

    def standing(self, writers: WriterLedger, params: BaseModel) -> Standing:
        def mean(author: str) -> float:
            agreed, n = writers.agreement(author)
            return (1.0 + agreed) / (2.0 + n)

        return mean


@dataclass(frozen=True)
class InfluenceLimiter(WriterWeighing):
    """Writers' influence capped by a reputation earned by confirmed records."""

    Params: type[BaseModel] = LimiterParams

    def standing(self, writers: WriterLedger, params: BaseModel) -> Standing:
        assert isinstance(params, LimiterParams)

        def reputation(author: str) -> float:
            agreed, n = writers.agreement(author)
            net = agreed - (n - agreed)  # confirmations minus contradictions
            return min(1.0, max(0.0, params.initial + params.gain * net))

        return reputation


@dataclass(frozen=True)
class SeededTrust(WriterWeighing):
    """Trust propagated from the set's first writers (EigenTrust-like)."""

    Params: type[BaseModel] = TrustParams

    def standing(self, writers: WriterLedger, params: BaseModel) -> Standing:
        assert isinstance(params, TrustParams)
        trust = writers.cached(
            f"trust{params.seeds},{params.alpha}", lambda: _trust(writers, params)
        )
        return lambda author: trust.get(author, 0.0)


def _trust(writers: WriterLedger, params: TrustParams) -> dict[str, float]:
    """EigenTrust's global trust, t = (1 - alpha) C^T t + alpha p, from normalised local
    trust (each pair's summed agreement where positive) and p even over the trusted
    writers; each writer's trust as a multiple of an even share, capped at 1."""
    from scipy.sparse import coo_matrix  # the trust iteration alone needs scipy

    names = list(writers.writers)
    seeds = [writers.writers[a] for a in writers.founders[: params.seeds]]
    if not seeds:
        return dict.fromkeys(names, 1.0)  # nobody is known yet: no defence to apply
    n = len(names)
    columns = writers.pair_columns
    rows, cols = np.frombuffer(columns[0], dtype="l"), np.frombuffer(columns[1], dtype="l")
    values = np.frombuffer(columns[2], dtype="d")
    local = coo_matrix((values, (rows, cols)), shape=(n, n)).tocsr()  # sums each pair
    local.data = np.maximum(local.data, 0.0)
    sums = np.asarray(local.sum(axis=1)).ravel()
    prior = np.zeros(n)
    prior[seeds] = 1.0 / len(seeds)
    scale = np.divide(1.0, sums, out=np.zeros(n), where=sums > 0)
    silent = sums == 0  # a writer who trusts nobody defers to the trusted, as EigenTrust's
    t = prior.copy()
    for _ in range(50):
        spread = local.T @ (t * scale) + prior * float(t[silent].sum())
        t_next = (1.0 - params.alpha) * spread + params.alpha * prior
        if np.abs(t_next - t).sum() < 1e-9:
            t = t_next
            break
        t = t_next
    return {a: min(1.0, float(t[i]) * n) for i, a in enumerate(names)}


@lru_cache(maxsize=4096)
def _beta_bounds(positive: float, negative: float, q: float) -> tuple[float, float]:
    from scipy.stats import beta  # the filter alone needs scipy: imported when it runs

    low, high = beta.ppf([q, 1.0 - q], positive + 1.0, negative + 1.0)
    return float(low), float(high)


def _inside(score: float, counts: list[float], q: float) -> bool:
    """Whether ``score`` lies within the q and 1 - q quantiles of a writer's Beta."""
    low, high = _beta_bounds(counts[0], counts[1], q)
    return low <= score <= high


@dataclass(frozen=True)
class BetaFilter(Window):
    """The Beta Reputation System's iterated filtering of outlying writers."""

    reads_writers: ClassVar[bool] = True
    Params: type[BaseModel] = FilterParams

    def switched_off(self, params: BaseModel) -> bool:
        assert isinstance(params, FilterParams)
        return params.q == 0.0

    def weigh_with(
        self,
        records: Sequence[RecordFacts],
        now: int,
        params: BaseModel,
        writers: WriterLedger | None,
    ) -> tuple[float, ...] | None:
        assert isinstance(params, FilterParams)
        if self.switched_off(params):
            return None
        counts: dict[str, list[float]] = {}
        for r in records:
            if r.writer != "penalty":
                v = VALUE[r.label]
                found = counts.setdefault(r.author, [0.0, 0.0])
                found[0] += v
                found[1] += 1.0 - v
        kept = set(counts)
        while len(kept) > 1:
            positive = sum(counts[a][0] for a in kept)
            negative = sum(counts[a][1] for a in kept)
            score = (positive + 1.0) / (positive + negative + 2.0)
            dropped = {a for a in kept if not _inside(score, counts[a], params.q)}
            if not dropped or dropped == kept:  # nothing to drop, or nobody left to agree
                break
            kept -= dropped
        return tuple(1.0 if r.writer == "penalty" or r.author in kept else FLOOR for r in records)


BRS_FILTER = MECHANISMS.register(
    BetaFilter("brs-filter", "records by writers far from the consensus count for next to nothing")
)
CREDIBILITY = MECHANISMS.register(
    Credibility(
        "credibility", "a record counts as its writer's past records agreed with later ones"
    )
)
INFLUENCE_LIMITER = MECHANISMS.register(
    InfluenceLimiter(
        "influence-limiter", "a record counts at most as much as its writer's earned reputation"
    )
)
SEEDED_TRUST = MECHANISMS.register(
    SeededTrust("seeded-trust", "a record counts as much as trusted writers agree with its writer")
)
