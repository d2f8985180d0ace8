"""What LLM calls cost, and the budget that holds across resumes and worker processes.

Tokens and cost per (role, model) are kept in memory for the run's summary. Money is kept
in a spend account, a one-row SQLite table in the run's store (or, under ``reproduce``, in
the reproduce directory, shared by every cell's process). Before a call is sent it
reserves its worst case: every character of the prompt a token, and ``max_tokens`` of
completion. A reservation that would take spent plus reserved past the budget is refused,
so the budget is never passed, whatever the number of calls in flight; after the call the
reservation is replaced by the call's price. Because the account is stored, a rerun
continues from what earlier runs spent instead of starting at zero.
"""

from __future__ import annotations

import sqlite3
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from recmarket.agents.llm.cache import CachedCall
from recmarket.agents.llm.config import STANDARD, ModelConfig
from recmarket.agents.llm.prices import price, worst_price
from recmarket.sqlite_files import connect, named_errors

SCHEMA = """
CREATE TABLE IF NOT EXISTS llm_spend (
    id INTEGER PRIMARY KEY CHECK (id = 1), spent REAL NOT NULL, reserved REAL NOT NULL)
"""


class BudgetExceeded(RuntimeError):
    """The next call could pass the spending limit; the run stops cleanly and can resume
    with a higher --budget."""


class BudgetWithoutPrices(ValueError):
    """--budget for a model whose prices are unknown could never stop anything."""


def worst_case(cfg: ModelConfig, messages: list[dict[str, str]], max_tokens: int) -> float:
    """The most a call can cost: no tokenizer makes more tokens than characters, and the
    completion is at most max_tokens (the same bounds the ledger trusts), every prompt
    token fresh, at the peak rate."""
    return worst_price(cfg, sum(len(m["content"]) for m in messages), max_tokens)


class SpendAccount:
    """Money spent and reserved, in a SQLite file several processes may share. Every change
    is one atomic statement, so concurrent cells cannot together pass the budget. Without a
    path the account lives in memory (a check that belongs to no run)."""

    def __init__(self, path: Path | None, budget: float | None) -> None:
        self.path, self.budget = path, budget
        self.in_flight = 0  # this process's paid calls sent and not yet answered
        self.db = connect(path, timeout=30) if path else sqlite3.connect(":memory:")
        self._execute(SCHEMA)
        self._execute("INSERT OR IGNORE INTO llm_spend VALUES (1, 0, 0)")

    def _execute(self, sql: str, params: Any = ()) -> sqlite3.Cursor:
        with named_errors(self.path or "the spend account", "the spend so far is kept"):
            return self.db.execute(sql, params)

    @property
    def spent(self) -> float:
        """USD spent so far, settled calls and open reservations included."""
        return float(self._execute("SELECT spent FROM llm_spend").fetchone()[0])

    def clear_reservations(self) -> None:
        """Reservations left by a process that was killed mid-call; only safe while no
        other process uses the account (before a run or a reproduce starts its cells)."""
        self._execute("UPDATE llm_spend SET reserved = 0")

    def reserve(self, amount: float) -> None:
        """Hold ``amount`` for a call about to be sent, or raise BudgetExceeded."""
        changed = self._execute(
            "UPDATE llm_spend SET reserved = reserved + :amount "
            "WHERE :budget IS NULL OR spent + reserved + :amount <= :budget",
            {"amount": amount, "budget": self.budget},
        ).rowcount
        if not changed:
            raise self.exceeded(amount)

    def exceeded(self, amount: float) -> BudgetExceeded:
        """The stop for a call of ``amount`` the budget cannot cover, with the spend as it
        stands now (give it once the calls in flight have landed)."""
        return BudgetExceeded(
            f"budget of ${self.budget:.2f} reached: ${self.spent:.4f} spent so far (by "
            f"this run and the earlier ones in {self.path}), and the next call could "
            f"cost up to ${amount:.4f}; finished episodes are kept, rerun with a higher "
            "--budget to go on"
        )

    def settle(self, reserved: float, cost: float) -> None:
        """Replace a reservation by what the call cost (0 when it failed)."""
        self._execute(
            "UPDATE llm_spend SET reserved = MAX(reserved - ?, 0), spent = spent + ?",
            (reserved, cost),
        )

    def close(self) -> None:
        """Close the account's store."""
        self.db.close()


@dataclass
class Usage:
    """One role's and model's calls in a run: how many, how many the stores answered, tokens
    and cost."""

    calls: int = 0
    cached: int = 0
    prompt_tokens: int = 0
    provider_cached_tokens: int = 0  # prompt tokens served from the provider's prompt cache
    completion_tokens: int = 0
    cost: float = 0.0
    retries: int = 0
    estimated: int = 0  # calls charged by token counts estimated from their characters
    # Paid calls by the tier that billed them ("default" where none was asked or named)
    tiers: dict[str, int] = field(default_factory=dict)
    busy: int = 0  # flex answers "busy" waited out
    fallbacks: int = 0  # flex calls sent on the default tier after flex_wait
    prompt_tokens_sent: int = 0  # prompt tokens of the calls sent (not from a store)

    @property
    def cached_share(self) -> float | None:
        """The share of the sent calls' prompt tokens the provider served from its prompt
        cache (None: nothing was sent)."""
        sent = self.prompt_tokens_sent
        return self.provider_cached_tokens / sent if sent else None


@dataclass
class Ledger:
    """Tokens and cost per (role, model) in this process, and the spend account."""

    account: SpendAccount
    rows: dict[tuple[str, str], Usage] = field(default_factory=lambda: defaultdict(Usage))

    def add(self, role: str, cfg: ModelConfig, call: CachedCall, cached: bool) -> None:
        """Count one answered call (``cached``: a store answered it, at no cost) for its
        role and model."""
        usage = self.rows[(role, cfg.name)]
        usage.calls += 1
        usage.cached += cached
        usage.prompt_tokens += call.prompt_tokens
        usage.completion_tokens += call.completion_tokens
        if not cached:
            usage.prompt_tokens_sent += call.prompt_tokens
            usage.provider_cached_tokens += call.cached_tokens
            usage.retries += call.retries
            usage.estimated += call.estimated
            tier = call.tier or STANDARD
            usage.tiers[tier] = usage.tiers.get(tier, 0) + 1
            usage.busy += call.busy
            usage.fallbacks += cfg.flex and tier == STANDARD
            usage.cost += price(
                cfg, call.prompt_tokens, call.completion_tokens, call.cached_tokens, tier=tier
            )
