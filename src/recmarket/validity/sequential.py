"""The ladder's trained rung: SASRec (Kang and McAuley 2018), the self-attentive sequential
recommender the field's sampled protocols report, from cornac (Preferred.AI's maintained
library), as the optional extra ``recmarket[sequential]`` (install torch==2.13.0 first).

It is fitted once a category, before any held-out is scored, on every person's reviews in
time order but their latest (the card's held-out) and their earlier reviews of that item (as
the history leaves them out): the field's leave-one-out split. It then scores a held-out's
candidates from the person's history alone. An item no training sequence holds, such as a
held-out new to the data, is one it cannot recommend: it is placed below every item it
knows, ties broken at random as on every rung.

Its settings are cornac's defaults for SASRec, which follow the paper's (two attention
blocks, one head, sequences of 50, Adam at 0.001) and were set before any card was read;
none is fitted. Below SEQUENTIAL_MIN_PEOPLE people a category gives too few transitions to
learn an item's embedding (most items appear once): the rung says "not fitted" there, as it
does where the extra is not installed.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from recmarket.data.domain import Domain
from recmarket.streams import Stream, call_seed
from recmarket.validity.category_data import CategoryData
from recmarket.validity.heldout import HeldOut

SEQUENTIAL_MIN_PEOPLE = 100
EXTRA = "not fitted: no sequential extra (pip install 'recmarket[sequential]')"
TOO_FEW = f"not fitted: fewer than {SEQUENTIAL_MIN_PEOPLE} people"


def training_sequences(domain: Domain) -> list[tuple[int, int, int]]:
    """(person, item, time) rows of every person's reviews but their latest and their
    earlier reviews of its item, ordered by person then time (a session a person)."""
    rows = domain.interactions
    order = np.lexsort((rows.line, rows.timestamp, rows.user))
    users = rows.user[order]
    found: list[tuple[int, int, int]] = []
    if not len(users):
        return found
    starts = np.flatnonzero(np.r_[True, users[1:] != users[:-1]])
    ends = np.r_[starts[1:], len(users)]
    for person, (start, end) in enumerate(zip(starts, ends, strict=True)):
        mine = order[start:end]
        latest = domain.item_index[mine[-1]]
        found += [
            (person, int(domain.item_index[k]), int(rows.timestamp[k]))
            for k in mine[:-1]
            if domain.item_index[k] != latest
        ]
    return found


@dataclass(frozen=True)
class FittedSequence:
    """A fitted model and its items' places in it (by the domain's item index)."""

    model: Any
    place: dict[int, int]

    def scores(self, history: Sequence[int], items: Sequence[int]) -> np.ndarray:
        """The model's scores of ``items`` after ``history`` (-inf for an item it never
        saw: it cannot recommend one)."""
        known = [self.place[i] for i in history if i in self.place]
        every = np.asarray(self.model.score(None, known), dtype=float)
        return np.array([every[self.place[i]] if i in self.place else -np.inf for i in items])


@dataclass(frozen=True)
class Sequential:
    """SASRec over the person's history, fitted on the category (``fit``)."""

    name: str = "sequential"

    def note(self, data: CategoryData) -> str:
        if importlib.util.find_spec("cornac") is None or importlib.util.find_spec("torch") is None:
            return EXTRA
        return "" if data.people >= SEQUENTIAL_MIN_PEOPLE else TOO_FEW

    def fit(self, data: CategoryData) -> None:
        """Train once a category (kept in ``data.fits``), seeded from the card's seed."""
        if self.name in data.fits:
            return
        import torch
        from cornac.data import SequentialDataset
        from cornac.models import SASRec

        seed = call_seed(data.seed, data.domain.name, Stream.BASELINE) % 2**32  # numpy's legacy
        train = SequentialDataset.build(training_sequences(data.domain), fmt="SIT", seed=seed)
        threads = torch.get_num_threads()
        torch.set_num_threads(1)  # one summation order on any number of cores: the same model
        try:
            model = SASRec(seed=seed).fit(train)
        finally:
            torch.set_num_threads(threads)
        data.fits[self.name] = FittedSequence(model, dict(train.iid_map))

    def scores(self, data: CategoryData, held: HeldOut, items: Sequence[int]) -> np.ndarray:
        self.fit(data)
        fitted: FittedSequence = data.fits[self.name]
        return fitted.scores([h.item_index for h in held.episode.history], items)
