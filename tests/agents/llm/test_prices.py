"""Prices: a model's config wins; else the bundled table prices a provider's models at its
own endpoint, at peak or off-peak rates by the hour, cache hits at their own rate."""

from datetime import UTC, datetime

import pytest

from recmarket.agents.llm.backend import require_prices
from recmarket.agents.llm.config import LLMConfig, ModelConfig
from recmarket.agents.llm.ledger import BudgetWithoutPrices, worst_case
from recmarket.agents.llm.prices import hosts_pricing, price, prices_for, table, worst_price
from recmarket.config import RunConfig
from recmarket.run.estimate import price_sources

DEEPSEEK = ModelConfig(name="deepseek-chat", base_url="https://api.deepseek.com")
PEAK = datetime(2026, 12, 1, 2, 30, tzinfo=UTC)  # 02:30 UTC: in 01:00-04:00
OFF_PEAK = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def test_the_table_says_where_its_figures_come_from_and_when() -> None:
    for provider in table().values():
        assert provider.source.startswith("https://") and provider.checked is not None
        assert provider.models and provider.hosts


def test_a_deepseek_call_costs_half_off_peak_and_cache_hits_their_own_rate() -> None:
    at_peak = price(DEEPSEEK, 1_000_000, 0, when=PEAK)
    assert at_peak == pytest.approx(0.30)
    assert price(DEEPSEEK, 1_000_000, 0, when=OFF_PEAK) == pytest.approx(at_peak / 2)
    assert price(DEEPSEEK, 1_000_000, 0, cached_tokens=1_000_000, when=PEAK) == pytest.approx(0.006)
    assert price(DEEPSEEK, 0, 1_000_000, when=OFF_PEAK) == pytest.approx(0.60)


def test_the_budget_reserves_the_most_a_call_can_cost_at_any_hour() -> None:
    messages = [{"role": "user", "content": "x" * 1000}]
    assert worst_case(DEEPSEEK, messages, 500) == pytest.approx((1000 * 0.30 + 500 * 1.20) / 1e6)


def test_the_same_name_served_elsewhere_is_not_priced_from_the_table() -> None:
    local = DEEPSEEK.model_copy(update={"base_url": "http://127.0.0.1:8000/v1"})
    assert prices_for(local) is None and price(local, 1000, 1000) == 0.0


def test_a_model_priced_only_elsewhere_says_where_to_send_it() -> None:
    at_openai = ModelConfig(name="deepseek-chat")  # no base URL given
    assert prices_for(at_openai) is None
    said = price_sources(RunConfig(llm=LLMConfig(models={"m": at_openai}, roles={"default": "m"})))
    assert len(said) == 1 and "no prices at api.openai.com" in said[0]
    assert "--llm-base-url https://api.deepseek.com/v1" in said[0]
    assert hosts_pricing("deepseek-v4-flash") == ["api.deepseek.com"]  # an alias too
    assert hosts_pricing("my-local-model") == []


def test_prices_in_the_config_win_over_the_table_at_every_hour() -> None:
    own = DEEPSEEK.model_copy(update={"input_price": 1.0, "output_price": 2.0})
    assert price(own, 1_000_000, 1_000_000, when=PEAK) == pytest.approx(3.0)
    assert price(own, 1_000_000, 1_000_000, when=OFF_PEAK) == pytest.approx(3.0)
    assert prices_for(own).source == "the model's config"


def test_a_budget_needs_no_prices_for_a_model_the_table_prices() -> None:
    priced = LLMConfig(models={"m": DEEPSEEK}, roles={"default": "m"})
    require_prices(priced, budget=5.0)
    local = DEEPSEEK.model_copy(update={"base_url": "http://127.0.0.1:8000/v1"})
    with pytest.raises(BudgetWithoutPrices, match="no prices for deepseek-chat"):
        require_prices(LLMConfig(models={"m": local}, roles={"default": "m"}), budget=5.0)


def test_a_call_is_priced_at_its_tiers_rate_and_an_unknown_tier_at_the_standard_one() -> None:

    mini = ModelConfig(name="gpt-5-mini")  # at api.openai.com: the bundled table's
    found = prices_for(mini)
    assert found is not None and set(found.tiers) == {"flex", "batch"}
    standard = price(mini, 1_000_000, 0)
    assert price(mini, 1_000_000, 0, tier="flex") == price(mini, 1_000_000, 0, tier="batch")
    assert price(mini, 1_000_000, 0, tier="batch") == standard / 2
    assert price(mini, 1_000_000, 0, tier="scale") == standard  # never cheaper by accident
    assert worst_price(mini, 1000, 1000) == price(mini, 1000, 1000)  # the dearest: standard
    configured = ModelConfig(
        name="x", input_price=2.0, output_price=4.0, tier_prices={"batch": 0.5}
    )
    assert price(configured, 1_000_000, 1_000_000, tier="batch") == 3.0


def test_a_tier_multiplier_outside_0_10_is_refused_naming_it() -> None:
    with pytest.raises(ValueError, match=r"tier_prices.flex: -1.0 is not a multiplier"):
        ModelConfig(name="x", tier_prices={"flex": -1.0})
