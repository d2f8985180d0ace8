"""Outcome-grounded reputation memory (Section 3.3, Appendix A.5), and the mechanisms of
issue 12 that weigh its records.

Each history set maps platform ids to their claim-reliability records. Which set an
episode reads and writes is its scope: ``local`` keeps one set per simulated user
(Local-12, the default), ``style`` one per profile (Style-6), ``shared`` one for everybody
(Shared-1). Only the purchased platform's history changes, and only after a purchase.

What the user agent is shown depends on the mechanism: ``window`` the W most recent records
(the paper's Tail_W); ``beta`` every record, so that the reader's prior and the number of
records decide how sure it is (few records read as little evidence, not as bad evidence);
``decay`` every record that still counts, each weighted ``decay`` to the power of the number
of newer records, so a platform whose claims improve recovers.
"""

from __future__ import annotations

import math
from collections import defaultdict, deque

from recmarket.agents.contracts import ReputationRecord, WeightedRecord
from recmarket.data.episodes import Request
from recmarket.profiles import PROFILE_NAMES
from recmarket.vocabulary import Mechanism, Scope


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


FORGOTTEN = 1e-3  # under decay, a record weighing less than this is dropped


class ReputationMemory:
    def __init__(
        self, window: int, scope: Scope, mechanism: Mechanism = "window", decay: float = 0.8
    ) -> None:
        self.window, self.scope, self.mechanism, self.decay = window, scope, mechanism, decay
        self.kept = {
            "window": window,
            "beta": None,  # every record
            "decay": math.ceil(math.log(FORGOTTEN) / math.log(decay)),
        }[mechanism]
        self._sets: dict[str, dict[str, deque[ReputationRecord]]] = defaultdict(dict)

    def histories(
        self, request: Request, platform_ids: tuple[str, ...]
    ) -> dict[str, tuple[ReputationRecord, ...]]:
        """Every platform's history as this request's user agent sees it (possibly empty)."""
        kept = self._sets[scope_key(request, self.scope)]
        return {p: self._shown(tuple(kept.get(p, ()))) for p in platform_ids}

    def _shown(self, records: tuple[ReputationRecord, ...]) -> tuple[ReputationRecord, ...]:
        if self.mechanism != "decay":
            return records
        newest = len(records) - 1
        return tuple(
            WeightedRecord(
                claim_reliability=r.claim_reliability,
                note=r.note,
                weight=self.decay ** (newest - i),
            )
            for i, r in enumerate(records)
        )

    def append(self, request: Request, platform_id: str, record: ReputationRecord) -> None:
        kept = self._sets[scope_key(request, self.scope)]
        kept.setdefault(platform_id, deque(maxlen=self.kept)).append(record)
