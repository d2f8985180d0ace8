"""The spend account: reservations keep every run under its budget, across calls in
flight, resumed runs and processes sharing one account."""

from pathlib import Path

import pytest

from recmarket.agents.llm.config import ModelConfig
from recmarket.agents.llm.ledger import BudgetExceeded, SpendAccount, worst_case


def test_a_reservation_past_the_budget_is_refused_with_spend_and_budget(tmp_path: Path) -> None:
    account = SpendAccount(tmp_path / "run.sqlite", budget=1.0)
    account.reserve(0.6)
    with pytest.raises(BudgetExceeded, match=r"budget of \$1\.00 reached: \$0\.0000 spent"):
        account.reserve(0.6)  # in flight together they could pass the budget
    account.settle(0.6, 0.25)
    account.reserve(0.6)  # the first call cost less than it reserved
    assert account.spent == pytest.approx(0.25)


def test_spend_is_kept_across_runs_and_shared_between_processes(tmp_path: Path) -> None:
    path = tmp_path / "spend.sqlite"
    first, second = SpendAccount(path, budget=1.0), SpendAccount(path, budget=1.0)
    first.reserve(0.5)
    with pytest.raises(BudgetExceeded):
        second.reserve(0.6)  # the other process's reservation counts
    first.settle(0.5, 0.5)
    first.close()
    resumed = SpendAccount(path, budget=1.0)
    assert resumed.spent == pytest.approx(0.5)
    with pytest.raises(BudgetExceeded, match=r"\$0\.5000 spent"):
        resumed.reserve(0.6)


def test_stale_reservations_of_a_killed_process_can_be_cleared(tmp_path: Path) -> None:
    path = tmp_path / "spend.sqlite"
    SpendAccount(path, budget=1.0).reserve(0.9)  # never settled
    account = SpendAccount(path, budget=1.0)
    with pytest.raises(BudgetExceeded):
        account.reserve(0.2)
    account.clear_reservations()
    account.reserve(0.2)


def test_without_a_budget_spend_is_still_counted(tmp_path: Path) -> None:
    account = SpendAccount(tmp_path / "run.sqlite", budget=None)
    account.reserve(1e9)
    account.settle(1e9, 3.0)
    assert account.spent == 3.0


def test_the_worst_case_bounds_any_tokenization() -> None:
    cfg = ModelConfig(name="m", input_price=2.0, output_price=10.0)
    messages = [{"role": "user", "content": "x" * 1000}]
    assert worst_case(cfg, messages, max_tokens=500) == pytest.approx(
        (1000 * 2.0 + 500 * 10.0) / 1e6
    )


def test_the_ledger_counts_calls_by_tier_flex_fallbacks_and_the_cached_share() -> None:
    from recmarket.agents.llm.cache import CachedCall
    from recmarket.agents.llm.ledger import Ledger

    cfg = ModelConfig(
        name="m", input_price=1.0, output_price=1.0, service_tier="flex", tier_prices={"flex": 0.5}
    )
    ledger = Ledger(SpendAccount(None, None))
    ledger.add("query", cfg, CachedCall("a", 1000, 0, 0.1, 0, 500, tier="flex", busy=2), False)
    ledger.add("query", cfg, CachedCall("b", 1000, 0, 0.1, 0, 0, tier="default"), False)
    ledger.add("query", cfg, CachedCall("c", 1000, 0, 0.1, 0), True)  # from a store: free
    usage = ledger.rows[("query", "m")]
    assert usage.tiers == {"flex": 1, "default": 1} and usage.busy == 2 and usage.fallbacks == 1
    assert usage.cached_share == 0.25  # 500 of the 2,000 prompt tokens sent
    assert usage.cost == pytest.approx((1000 * 0.5 + 1000 * 1.0) / 1e6)
