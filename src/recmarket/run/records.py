"""Episodes as records: the plain record a finished episode becomes, how records reach the
store in batches, and how stored records give a resumed domain back its reputation memory
and its platforms' lessons (the same appends and updates the episodes made when they ran).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

from recmarket.agents.contracts import ReputationRecord
from recmarket.catalogue.mechanisms import Writer
from recmarket.config import RunConfig
from recmarket.data.episodes import Request
from recmarket.market.metrics import choice_alternatives, episode_metrics
from recmarket.market.outcome import Outcome
from recmarket.market.reputation import ReputationMemory
from recmarket.market.seats import Strategies
from recmarket.run.episode_rows import EpisodeRecord, EpisodeRows, episode_rows
from recmarket.run.store import RunStore

# The first episodes of each domain whose calls an offline run keeps: the report's explorer
# shows them at once; any other is played again from the run's settings when asked for
# (run/replay.py), rather than every episode's 20 KB of call JSON written and compressed.
CALLS_KEPT = 3


def keeps_calls(cfg: RunConfig, everything: bool = False) -> Callable[[Outcome], bool]:
    """Which finished episodes keep their role calls: every one an LLM answered a role of
    (a model's answers cannot be made again) and every one of a run its settings alone
    cannot play again (``everything``: a branch, or roles handed to ``run`` in Python), the
    first CALLS_KEPT of a domain otherwise."""
    if cfg.uses_llm or everything:
        return lambda _: True
    return lambda outcome: outcome.request.order < CALLS_KEPT


def as_record(outcome: Outcome, keep_calls: bool = True) -> EpisodeRecord:
    """An outcome as the store's row: identity, metrics, and its calls where they are kept."""
    request = outcome.request
    identity = {
        "domain": request.episode.domain,
        "ord": request.order,
        "episode_id": request.episode.episode_id,
        "sim_user": request.sim_user,
        "round": request.round,
        "profile": request.profile,
        "condition": outcome.condition,
    }
    bought = outcome.purchased if outcome.record else None
    return EpisodeRecord(
        identity,
        episode_metrics(outcome).model_dump(),
        (bought.shown_as if bought else None, outcome.record.note if outcome.record else None),
        [
            (c.role, c.input.model_dump_json(), c.output.model_dump_json() if c.output else "null")
            for c in outcome.calls
        ]
        if keep_calls
        else None,
        json.dumps(outcome.lessons) if outcome.lessons else None,
        json.dumps(outcome.identities) if outcome.identities else None,
        json.dumps(outcome.written) if outcome.written else None,
        choice_alternatives(outcome),
    )


# What happens to an episode once it is finished: it is written (or sent to the writer).
Commit = Callable[[Outcome], None]


class BatchedWrites:
    """Finished episodes written ``size`` at a time, one transaction a batch: a commit per
    episode was a tenth of an offline run's time. What is finished is flushed at the end,
    also when the run stops on an error; a kill loses at most one batch, which the rerun
    plays again with the same draws."""

    def __init__(
        self,
        store: RunStore,
        size: int,
        tick: Callable[[], None],
        keep: Callable[[Outcome], bool] = lambda _: True,
    ) -> None:
        self.store, self.size, self.tick, self.keep = store, size, tick, keep
        self.rows: list[EpisodeRows] = []

    def __call__(self, outcome: Outcome) -> None:
        self.rows.append(episode_rows(as_record(outcome, self.keep(outcome))))
        if len(self.rows) >= self.size:
            self.flush()
        self.tick()

    def flush(self) -> None:
        """Write the rows held so far, in one transaction."""
        rows, self.rows = self.rows, []
        if rows:
            self.store.write_rows(rows)


WRITE_BATCH = 32  # offline episodes per transaction; LLM episodes, paid for, go one by one


# (order, platform, label, note, writer, place among the records written after the
# episode): a stored episode's reputation record, as resume needs it
StoredRecord = tuple[int, str, str, str, Writer, int]


def stored_records(rows: list[dict[str, Any]]) -> list[StoredRecord]:
    """The reputation records of stored episodes, in the rows' order: each episode's own,
    then those written after it (forged, or an oracle's), as the episode appended them."""
    found: list[StoredRecord] = []
    for r in rows:
        if r["rep_label"] is not None:
            found.append((r["ord"], r["rep_platform"], r["rep_label"], r["rep_note"], "user", 0))
        written = json.loads(r.get("written") or "[]")
        found += [(r["ord"], *w[:4], k) for k, w in enumerate(written)]
    return found


def restore_reputation(
    memory: ReputationMemory, requests: list[Request], records: Iterable[StoredRecord]
) -> None:
    """Rebuild a memory from stored records (in schedule order), as a resumed run or a
    work unit needs it: the same appends the episodes made when they first ran."""
    by_order = {r.order: r for r in requests}
    for order, platform, label, note, writer, place in records:
        memory.append(
            by_order[order],
            platform,
            ReputationRecord.model_validate({"claim_reliability": label, "note": note}),
            writer,
            place,
        )


def restore_strategies(strategies: Strategies, rows: Iterable[dict[str, Any]]) -> None:
    """Hand the learners the lessons of stored episodes; they apply them period by period
    as the run goes on, exactly as when the episodes first ran."""
    for row in rows:
        lessons = json.loads(row["lessons"]) if row.get("lessons") else {}
        strategies.observe(row["ord"], {p: (arm, value) for p, (arm, value) in lessons.items()})
