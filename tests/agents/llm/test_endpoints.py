"""Backends that share Endpoints (the cells of a reproduce) measure each endpoint once."""

import asyncio
from pathlib import Path

import pytest

from recmarket.agents.llm.backend import LLMBackend
from recmarket.agents.llm.config import LLMConfig, ModelConfig
from recmarket.agents.llm.endpoints import Endpoints
from recmarket.testing.fake_llm import FakeLLM

KEY_ENV = "RECMARKET_TEST_KEY"


@pytest.fixture(autouse=True)
def api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, "sk-test")


def config(server: FakeLLM) -> LLMConfig:
    model = ModelConfig(
        name="fake-model", base_url=server.base_url, api_key_env=KEY_ENV, structured="auto"
    )
    return LLMConfig(models={"m": model}, roles={"default": "m"})


def checked_calls(server: FakeLLM, backends: int, tmp_path: Path) -> list:
    """The check of ``backends`` backends sharing endpoints, at once; their results."""
    endpoints = Endpoints()

    async def check_all() -> list:
        made = [
            LLMBackend(config(server), [tmp_path / f"{n}.sqlite"], endpoints=endpoints)
            for n in range(backends)
        ]
        try:
            return await asyncio.gather(*(b.check() for b in made))
        finally:
            for backend in made:
                await backend.aclose()
                backend.close()

    return asyncio.run(check_all())


def test_shared_endpoints_are_measured_and_probed_once(tmp_path: Path) -> None:
    """One backend's check: its call, the parallel-latency probe (every level, at 50 ms a
    call), the structured-output probes. Two more backends sharing the endpoints, checking
    at the same time, add only their own check calls and adopt the form found."""
    with FakeLLM(latency=0.05, formats=("json_object",)) as server:
        [[alone]] = checked_calls(server, 1, tmp_path / "one")
        one = server.checks
    with FakeLLM(latency=0.05, formats=("json_object",)) as server:
        results = checked_calls(server, 3, tmp_path / "three")
        three = server.checks
    assert one > 3  # the check call, the probe's levels, the form probes
    # The probe stops at the first level that is slow, which depends on the machine's load
    # in each run: count calls apart from it (a warm-up call, then each level's calls).
    probed = [sum(level for level, _ in c.parallel) for [c] in [[alone], *results]]
    assert len(set(probed[1:])) == 1  # the three backends share one measurement
    # The other two backends make only their own check call.
    assert three - probed[1] == one - probed[0] + 2
    starts = {(c.start, c.reply_format) for [c] in results}
    assert starts == {(results[0][0].start, "json_object")}
