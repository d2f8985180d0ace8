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

from recmarket.agents.contracts import ReputationRecord, WeightedRecord
from recmarket.catalogue.mechanisms import PENALTY_NOTE, RecordFacts, ReputationSetting, Writer
from recmarket.catalogue.mechanisms import mechanism as mechanism_named
from recmarket.catalogue.scopes import SCOPES
from recmarket.data.episodes import Request
from recmarket.vocabulary import Scope


def scope_key(request: Request, scope: Scope) -> str:
    """The history set ``request`` reads and writes under ``scope``."""
    return SCOPES.get(scope).key(request)


def history_sets(scope: Scope, users_per_profile: int) -> int:
    """How many memory sets a domain's requests fall into under ``scope`` (scope_key's
    values), known before any request is drawn."""
    return SCOPES.get(scope).sets(users_per_profile)


class ReputationMemory:
    """The records of every history set, per platform, each with what the memory knows of
    it (``RecordFacts``), kept and weighed as the mechanism says."""

    def __init__(self, window: int, scope: Scope, setting: ReputationSetting | None = None) -> None:
        setting = setting or ReputationSetting(mechanism="window")
        self.window, self.scope = window, scope
        self.mechanism, self.params = mechanism_named(setting.mechanism), setting.built()
        self.kept = self.mechanism.kept(window, self.params)
        penalty = self.mechanism.penalty(self.params)
        self.penalty = tuple(
            ReputationRecord(claim_reliability="low", note=PENALTY_NOTE) for _ in range(penalty)
        )
        self._sets: dict[str, dict[str, deque[Kept]]] = defaultdict(dict)

    def histories(
        self, request: Request, platform_ids: tuple[str, ...]
    ) -> dict[str, tuple[ReputationRecord, ...]]:
        """Every platform's history as this request's user agent sees it (possibly empty)."""
        kept = self._sets[scope_key(request, self.scope)]
        return {p: self._shown(p, tuple(kept.get(p, ())), request.order) for p in platform_ids}

    def _shown(
        self, platform: str, kept: tuple[Kept, ...], now: int
    ) -> tuple[ReputationRecord, ...]:
        """The records as shown in round ``now``: after the newcomer penalty, if any, weighed
        by the mechanism (the penalty counts as the oldest records, so under decay it
        fades)."""
        fresh = RecordFacts(now, "penalty", platform)
        records = self.penalty + tuple(record for record, _ in kept)
        facts = (fresh,) * len(self.penalty) + tuple(f for _, f in kept)
        weights = self.mechanism.weigh(facts, now, self.params)
        if weights is None:
            return records
        return tuple(
            WeightedRecord(claim_reliability=r.claim_reliability, note=r.note, weight=w)
            for r, w in zip(records, weights, strict=True)
        )

    def append(
        self, request: Request, platform_id: str, record: ReputationRecord, writer: Writer = "user"
    ) -> None:
        """Keep a record of ``platform_id``, written by ``writer`` after ``request``, in the
        request's history set."""
        kept = self._sets[scope_key(request, self.scope)]
        facts = RecordFacts(request.order, writer, platform_id)
        kept.setdefault(platform_id, deque(maxlen=self.kept)).append((record, facts))


# A kept record and what the memory knows of it.
Kept = tuple[ReputationRecord, RecordFacts]
