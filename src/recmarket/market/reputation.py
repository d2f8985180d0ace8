"""Outcome-grounded reputation memory (Section 3.3, Appendix A.5).

Each history set maps platform ids to the W most recent claim-reliability records. Which
set an episode reads and writes is its scope: ``local`` keeps one set per simulated user
(Local-12, the default), ``style`` one per profile (Style-6), ``shared`` one for everybody
(Shared-1). Only the purchased platform's history changes, and only after a purchase.
"""

from __future__ import annotations

from collections import defaultdict, deque

from recmarket.agents.contracts import ReputationRecord
from recmarket.data.episodes import Request
from recmarket.vocabulary import Scope


def scope_key(request: Request, scope: Scope) -> str:
    if scope == "local":
        return f"user-{request.sim_user}"
    if scope == "style":
        return f"profile-{request.profile}"
    return "shared"


class ReputationMemory:
    def __init__(self, window: int, scope: Scope) -> None:
        self.window, self.scope = window, scope
        self._sets: dict[str, dict[str, deque[ReputationRecord]]] = defaultdict(dict)

    def histories(
        self, request: Request, platform_ids: tuple[str, ...]
    ) -> dict[str, tuple[ReputationRecord, ...]]:
        """Every platform's history as this request's user agent sees it (possibly empty)."""
        kept = self._sets[scope_key(request, self.scope)]
        return {p: tuple(kept.get(p, ())) for p in platform_ids}

    def append(self, request: Request, platform_id: str, record: ReputationRecord) -> None:
        kept = self._sets[scope_key(request, self.scope)]
        kept.setdefault(platform_id, deque(maxlen=self.window)).append(record)
