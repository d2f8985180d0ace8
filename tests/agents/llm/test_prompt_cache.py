"""Provider prompt-cache hits: read from the usage fields providers send, stored with the
call, priced at the cached rate, and shown in the ledger."""

import json
import sqlite3
from pathlib import Path
from types import SimpleNamespace

import pytest

from recmarket.agents.llm.cache import CachedCall, CallCache
from recmarket.agents.llm.config import LLMConfig, ModelConfig
from recmarket.agents.llm.openai_api import cached_tokens
from recmarket.agents.llm.prefixes import PrefixIndex, common_prefix, repeated_prefix_share
from recmarket.agents.llm.prices import price
from recmarket.config import EpisodeConfig, RunConfig
from recmarket.run.play_options import PlayOptions
from recmarket.run.runner import run
from recmarket.testing.fake_llm import FakeLLM


def test_cached_tokens_are_read_from_either_providers_field_and_nothing_else() -> None:
    openai_style = SimpleNamespace(prompt_tokens_details=SimpleNamespace(cached_tokens=640))
    deepseek_style = SimpleNamespace(
        prompt_tokens_details=None, model_extra={"prompt_cache_hit_tokens": 512}
    )
    assert cached_tokens(openai_style) == 640 and cached_tokens(deepseek_style) == 512
    assert cached_tokens(None) == 0
    assert cached_tokens(SimpleNamespace(prompt_tokens_details=None, model_extra={})) == 0
    silly = SimpleNamespace(prompt_tokens_details=SimpleNamespace(cached_tokens="lots"))
    assert cached_tokens(silly) == 0


def test_cached_prompt_tokens_are_priced_at_the_cached_rate() -> None:
    model = ModelConfig(name="m", input_price=0.27, output_price=1.1, cached_input_price=0.07)
    assert price(model, 1000, 100, 600) == pytest.approx((400 * 0.27 + 600 * 0.07 + 110) / 1e6)
    assert price(model, 1000, 100, 5000) == price(model, 1000, 100, 1000)  # never above prompt
    full = ModelConfig(name="m", input_price=0.27, output_price=1.1)
    assert price(full, 1000, 100, 600) == price(full, 1000, 100)  # no cached rate: full price


def test_prefixes_are_measured_against_every_earlier_prompt() -> None:
    assert common_prefix("abcdef", "abcxyz") == 3 and common_prefix("", "abc") == 0
    index = PrefixIndex()
    assert [index.add(t) for t in ("system rules A", "system rules B", "other", "system x")] == [
        0,
        13,
        0,
        7,
    ]
    assert repeated_prefix_share(["aaaa", "aaab"]) == pytest.approx(3 / 8)


def test_an_older_call_store_gains_the_column_and_keeps_its_calls(tmp_path: Path) -> None:
    path = tmp_path / "calls.sqlite"
    with sqlite3.connect(path) as db:
        db.execute(
            "CREATE TABLE llm_calls (key TEXT PRIMARY KEY, role TEXT NOT NULL, model TEXT NOT "
            "NULL, base_url TEXT NOT NULL, messages TEXT NOT NULL, params TEXT NOT NULL, sample "
            "INTEGER NOT NULL, response TEXT NOT NULL, prompt_tokens INTEGER NOT NULL, "
            "completion_tokens INTEGER NOT NULL, latency REAL NOT NULL, retries INTEGER NOT "
            "NULL, source TEXT NOT NULL, created TEXT NOT NULL)"
        )
        db.execute(
            "INSERT INTO llm_calls VALUES ('k','query','m','u','[]','{}',0,'hi',10,2,0.1,0,"
            "'network','2026-01-01')"
        )
    cache = CallCache([path])
    assert cache.get("k") == CachedCall("hi", 10, 2, 0.1, 0, 0)
    cache.put("k2", "query", "m", "u", [], {}, 0, CachedCall("yo", 10, 2, 0.1, 0, 7), cache.issue())
    assert cache.get("k2").cached_tokens == 7
    cache.close()


@pytest.mark.parametrize("provider", ["openai", "deepseek"])
def test_a_run_records_and_prices_provider_cache_hits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, provider: str
) -> None:
    monkeypatch.setenv("RECMARKET_TEST_KEY", "sk-test")
    with FakeLLM(prompt_cache=provider) as server:
        model = ModelConfig(
            name="fake",
            base_url=server.base_url,
            api_key_env="RECMARKET_TEST_KEY",
            input_price=1.0,
            output_price=1.0,
            cached_input_price=0.1,
        )
        cfg = RunConfig(
            condition="no-rep",
            domains=("Video_Games",),
            episodes=EpisodeConfig(requests=12),
            llm=LLMConfig(models={"m": model}, roles={"default": "m"}),
        )
        result = run(cfg, tmp_path / "r", PlayOptions(llm_cache=tmp_path / "calls.sqlite"))
    usage = result.ledger.rows[("explain", "fake")]
    assert 0 < usage.provider_cached_tokens < usage.prompt_tokens
    uncached = (usage.prompt_tokens + usage.completion_tokens) / 1e6
    assert usage.cost < uncached  # the cached share was priced at a tenth
    with sqlite3.connect(tmp_path / "r" / "run.sqlite") as db:
        stored = db.execute("SELECT SUM(cached_tokens) FROM llm_calls").fetchone()[0]
    assert stored == sum(u.provider_cached_tokens for u in result.ledger.rows.values())
    assert json.dumps(result.ledger.rows[("explain", "fake")].__dict__)
