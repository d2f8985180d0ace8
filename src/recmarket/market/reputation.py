"""Outcome-grounded reputation memory (Section 3.3, Appendix A.5), and the mechanisms of
issue 12 that weigh its records.

Each history set maps platform ids to their claim-reliability records. Which set an
episode reads and writes is its scope: ``local`` keeps one set per simulated user
(Local-12, the default), ``style`` one per profile (Style-6), ``shared`` one for everybody
(Shared-1). Only the purchased platform's history changes, and only after a purchase.

What the user agent is shown depends on the mechanism (``recmarket.mechanisms``): how many
records it keeps, and how it weighs those it shows.
"""

from __future__ import annotations

from collections import defaultdict, deque

from recmarket.agents.contracts import ReputationRecord, WeightedRecord
from recmarket.data.episodes import Request
from recmarket.mechanisms import mechanism as mechanism_named
from recmarket.profiles import PROFILE_NAMES
from recmarket.vocabulary import Scope


def scope_key(request: Request, scope: Scope) -> str:
    if scope == "local":
        return f"user-{request.sim_user}"
    if scope == "style":
        return f"profile-{request.profile}"
    return "shared"


def history_sets(scope: Scope, users_per_profile: int) -> int:
    """How many memory sets a domain's requests fall into under ``scope`` (scope_key's
    values), known before any request is drawn."""
    if scope == "local":
        return len(PROFILE_NAMES) * users_per_profile
    if scope == "style":
        return len(PROFILE_NAMES)
    return 1


class ReputationMemory:
    def __init__(
        self, window: int, scope: Scope, mechanism: str = "window", decay: float = 0.8
    ) -> None:
        self.window, self.scope, self.decay = window, scope, decay
        self.mechanism = mechanism_named(mechanism)
        self.kept = self.mechanism.kept(window, decay)
        self._sets: dict[str, dict[str, deque[ReputationRecord]]] = defaultdict(dict)

    def histories(
        self, request: Request, platform_ids: tuple[str, ...]
    ) -> dict[str, tuple[ReputationRecord, ...]]:
        """Every platform's history as this request's user agent sees it (possibly empty)."""
        kept = self._sets[scope_key(request, self.scope)]
        return {p: self._shown(tuple(kept.get(p, ()))) for p in platform_ids}

    def _shown(self, records: tuple[ReputationRecord, ...]) -> tuple[ReputationRecord, ...]:
        weights = self.mechanism.weights(len(records), self.decay)
        if weights is None:
            return records
        return tuple(
            WeightedRecord(claim_reliability=r.claim_reliability, note=r.note, weight=w)
            for r, w in zip(records, weights, strict=True)
        )

    def append(self, request: Request, platform_id: str, record: ReputationRecord) -> None:
        kept = self._sets[scope_key(request, self.scope)]
        kept.setdefault(platform_id, deque(maxlen=self.kept)).append(record)
