"""What a history set knows of the people who write its records: each writer's track
record, judged by the records others wrote later about the same platform.

Reputation research weighs a rating by its rater (the Beta Reputation System filters raters
whose ratings sit outside the consensus; TRAVOS and Resnick and Sami's influence limiter
weigh an advisor by how well its past opinions matched what came after; EigenTrust
propagates trust from raters trusted in advance). None of them sees the truth a record was
about, and neither does a market: a record here is judged only by the records that other
writers wrote later about the same platform, the one signal a deployed system has.

A ledger is kept per history set, and only for a mechanism that reads it (a memory whose
mechanism weighs records by position keeps none, so its runs cost what they did).
"""

from __future__ import annotations

from array import array
from collections import defaultdict, deque
from collections.abc import Callable
from typing import Any

# A label as a rating in [0, 1]: what a record says of the claim it judged
VALUE = {"high": 1.0, "mixed": 0.5, "low": 0.0}
# Earlier records about a platform a new one is compared with: the window's default W
HORIZON = 10


class WriterLedger:
    """One history set's writers: each writer's agreement with the records written after
    theirs about the same platform (``track``), agreement between pairs of writers
    (``pair_columns``, 2 x agreement - 1 per comparison, both ways), and the first writers of
    the set who are users, in order (``founders``).

    Agreement of two records is ``1 - |a - b|`` of their ratings: 1 when they say the
    same, 0 when one says High and the other Low.
    """

    def __init__(self, horizon: int = HORIZON, founders: int = 50) -> None:
        self.recent: dict[str, deque[tuple[str, float]]] = defaultdict(
            lambda: deque(maxlen=horizon)
        )
        self.track: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])  # [agreed, n]
        # Signed agreement of pairs of writers, as growing (writer, writer, value) columns
        # that sum per pair when read: a trust matrix is made from them in one pass, however
        # many writers a flood brings
        self.writers: dict[str, int] = {}
        self.pair_columns = (array("l"), array("l"), array("d"))
        self.founders: list[str] = []
        self._founder_cap = founders
        self.version = 0
        self._cache: dict[str, tuple[int, Any]] = {}

    def writer(self, author: str) -> int:
        """The author's index among the set's writers (given on first sight)."""
        return self.writers.setdefault(author, len(self.writers))

    def add(self, platform: str, author: str, label: str, by_a_user: bool) -> None:
        """A record by ``author`` about ``platform``: each earlier record about it by another
        writer (within the horizon) is judged by this one, and the pair's agreement kept."""
        value = VALUE[label]
        for earlier, said in self.recent[platform]:
            if earlier == author:
                continue
            agreed = 1.0 - abs(said - value)
            found = self.track[earlier]
            found[0] += agreed
            found[1] += 1.0
            signed = 2.0 * agreed - 1.0
            a, b = self.writer(earlier), self.writer(author)
            rows, cols, values = self.pair_columns
            rows.extend((a, b))
            cols.extend((b, a))
            values.extend((signed, signed))
        self.writer(author)
        self.recent[platform].append((author, value))
        if by_a_user and author not in self.founders and len(self.founders) < self._founder_cap:
            self.founders.append(author)
        self.version += 1

    def agreement(self, author: str) -> tuple[float, float]:
        """(agreement summed, records judged) of ``author``'s records so far."""
        agreed, n = self.track.get(author, (0.0, 0.0))
        return agreed, n

    def cached(self, key: str, make: Callable[[], Any]) -> Any:
        """``make()``, computed again only once the ledger has changed."""
        found = self._cache.get(key)
        if found is None or found[0] != self.version:
            found = (self.version, make())
            self._cache[key] = found
        return found[1]
