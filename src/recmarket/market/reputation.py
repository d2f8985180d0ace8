"""Outcome-grounded reputation memory (Section 3.3, Appendix A.5), and the mechanisms that
weigh its records.

Each history set maps platform ids to their claim-reliability records. Which set an
episode reads and writes is its scope: ``local`` keeps one set per simulated user
(Local-12, the default), ``style`` one per profile (Style-6), ``shared`` one for everybody
(Shared-1). Only the purchased platform's history changes, and only after a purchase.

What the user agent is shown depends on the mechanism (``recmarket.catalogue.mechanisms``): how many
records it keeps, and how it weighs those it shows.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Sequence
from typing import overload

from recmarket.agents.contracts import ReputationRecord, WeightedRecord
from recmarket.catalogue.mechanisms import (
    MECHANISMS,
    PENALTY_NOTE,
    RecordFacts,
    ReputationSetting,
    Writer,
)
from recmarket.catalogue.mechanisms import mechanism as mechanism_named
from recmarket.catalogue.registry import PluginError
from recmarket.catalogue.scopes import SCOPES
from recmarket.catalogue.writers import WriterLedger
from recmarket.data.episodes import Request
from recmarket.vocabulary import Scope


def scope_key(request: Request, scope: Scope) -> str:
    """The history set ``request`` reads and writes under ``scope``."""
    return SCOPES.get(scope).key(request)


def history_sets(scope: Scope, users_per_profile: int) -> int:
    """How many memory sets a domain's requests fall into under ``scope`` (scope_key's
    values), known before any request is drawn."""
    return SCOPES.get(scope).sets(users_per_profile)


def author_of(request: Request, writer: Writer, place: int) -> str:
    """The account a record comes from: the request's simulated user for its own review; for
    a forged record a fresh fake account per record (pseudonyms are free), named by its
    episode and its ``place`` among the records written after it, so a resumed run names it
    again; otherwise the writer's kind."""
    if writer == "user":
        return f"user{request.sim_user}"
    return f"fake{request.order}.{place}" if writer == "forged" else writer


class ReputationMemory:
    """The records of every history set, per platform, each with what the memory knows of
    it (``RecordFacts``), kept and weighed as the mechanism says."""

    def __init__(
        self,
        window: int,
        scope: Scope,
        setting: ReputationSetting | None = None,
        proof_of_purchase: bool = False,
    ) -> None:
        setting = setting or ReputationSetting(mechanism="window")
        self.window, self.scope, self.proof_of_purchase = window, scope, proof_of_purchase
        self.mechanism, self.params = mechanism_named(setting.mechanism), setting.built()
        self.kept = self.mechanism.kept(window, self.params)
        penalty = self.mechanism.penalty(self.params)
        self.penalty = tuple(
            ReputationRecord(claim_reliability="low", note=PENALTY_NOTE) for _ in range(penalty)
        )
        # history set -> platform -> its records and, alongside, what is known of each
        self._sets: dict[str, dict[str, Kept]] = defaultdict(dict)
        # history set -> its writers' track records, for a mechanism that reads them
        self._writers: dict[str, WriterLedger] = defaultdict(WriterLedger)

    @property
    def named(self) -> str | None:
        """The mechanism as a shortlist input names it: None where its records speak for
        themselves (the paper's window) or its parameters switch it off."""
        made = self.mechanism
        if made.evidence_header is None or made.switched_off(self.params):
            return None
        return made.name

    def histories(
        self, request: Request, platform_ids: tuple[str, ...]
    ) -> dict[str, tuple[ReputationRecord, ...]]:
        """Every platform's history as this request's user agent sees it (possibly empty)."""
        key = scope_key(request, self.scope)
        kept = self._sets[key]
        writers = self._writers[key] if self.mechanism.reads_writers else None
        return {p: self._shown(p, kept.get(p), request.order, writers) for p in platform_ids}

    def _shown(
        self, platform: str, kept: Kept | None, now: int, writers: WriterLedger | None
    ) -> tuple[ReputationRecord, ...]:
        """The records as shown in round ``now``: after the newcomer penalty, if any, weighed
        by the mechanism (the penalty counts as the oldest records, so under decay it
        fades)."""
        own, known = kept if kept is not None else ((), ())
        records = self.penalty + tuple(own)
        facts = FactsShown(len(self.penalty), known, now, platform)
        weights = self.mechanism.weigh_with(facts, now, self.params, writers)
        if weights is None:
            return records
        if len(weights) != len(records) or not all(0.0 < w <= 1.0 for w in weights):
            self._refuse(weights, len(records), platform, now)
        return tuple(
            WeightedRecord(claim_reliability=r.claim_reliability, note=r.note, weight=w)
            for r, w in zip(records, weights, strict=True)
        )

    def _refuse(self, weights: Sequence[float], count: int, platform: str, now: int) -> None:
        """Stop the run naming the mechanism (and the package it comes from) whose weights
        past its probe are no weights: a NaN or a count off would otherwise end deep in a
        role, naming neither."""
        name = self.mechanism.name
        origin = MECHANISMS.origin(name)
        whose = f" from {origin.describe()}" if origin is not None else ""
        shown = ", ".join(f"{w!r}" for w in list(weights)[:3])
        raise PluginError(
            f"reputation mechanism {name!r}{whose} weighed {count} records of {platform} in "
            f"round {now} as [{shown}{', ...' if len(weights) > 3 else ''}] "
            f"({len(weights)} weights); each record needs one weight in (0, 1]"
        )

    def append(
        self,
        request: Request,
        platform_id: str,
        record: ReputationRecord,
        writer: Writer = "user",
        place: int = 0,
    ) -> None:
        """Keep a record of ``platform_id``, written by ``writer`` after ``request`` (the
        ``place``-th of those written after it by others than its user), in the request's
        history set; under proof of purchase a forged record is refused, since its fake
        user bought nothing."""
        if writer == "forged" and self.proof_of_purchase:
            return
        key = scope_key(request, self.scope)
        kept = self._sets[key]
        if platform_id not in kept:
            kept[platform_id] = (deque(maxlen=self.kept), deque(maxlen=self.kept))
        records, facts = kept[platform_id]
        records.append(record)
        label = record.claim_reliability
        author = author_of(request, writer, place)
        facts.append(RecordFacts(request.order, writer, platform_id, author, label))
        if self.mechanism.reads_writers:
            self._writers[key].add(platform_id, author, label, writer == "user")


# A platform's kept records and, in step (the same length), what is known of each.
Kept = tuple[deque[ReputationRecord], deque[RecordFacts]]


class FactsShown(Sequence[RecordFacts]):
    """What the memory knows of the records shown in round ``now``, oldest first, the
    newcomer penalty's first (written as they are read): made only as a mechanism reads
    them, so one that weighs by position alone costs their count and nothing more."""

    __slots__ = ("_about", "_kept", "_now", "_penalty")

    def __init__(self, penalty: int, kept: Sequence[RecordFacts], now: int, about: str) -> None:
        self._penalty, self._kept, self._now, self._about = penalty, kept, now, about

    def __len__(self) -> int:
        return self._penalty + len(self._kept)

    @overload
    def __getitem__(self, index: int) -> RecordFacts: ...

    @overload
    def __getitem__(self, index: slice) -> list[RecordFacts]: ...

    def __getitem__(self, index: int | slice) -> RecordFacts | list[RecordFacts]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        if index < self._penalty:
            return RecordFacts(self._now, "penalty", self._about)
        return self._kept[index - self._penalty]
