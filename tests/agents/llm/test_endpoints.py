"""Backends that share Endpoints (the cells of a reproduce) measure each endpoint once."""

import asyncio
import math
from pathlib import Path

import pytest

from recmarket.agents.llm.api import ChatRequest, ProviderError, Reply
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


def test_the_check_survives_a_429_on_the_first_attempt_of_every_call(tmp_path: Path) -> None:
    """Every check, probe and form call is refused once with Retry-After: each is retried,
    and a probe level whose calls needed a retry is too many at once."""
    with FakeLLM(fail_first=429, formats=("json_object",)) as server:
        [[found]] = checked_calls(server, 1, tmp_path)
    assert found.parallel[0][0] == 1 and math.isfinite(found.parallel[0][1])
    assert found.parallel[1:] == [(2, math.inf)]
    assert found.start == 1 and found.reply_format == "json_object"


class RefusesCrowds:
    """A provider with ``room`` slots that refuses calls beyond them with a 429, as a hosted
    API under a concurrency quota does."""

    def __init__(self, room: int) -> None:
        self.room, self.now = room, 0

    async def generate(self, request: ChatRequest) -> Reply:
        if self.now >= self.room:
            raise ProviderError("HTTP 429", retryable=True, retry_after=0.02, rate_limited=True)
        self.now += 1
        try:
            await asyncio.sleep(0.005)
        finally:
            self.now -= 1
        return Reply("OK", 5, 1)

    async def aclose(self) -> None:
        pass


def test_a_quota_of_four_calls_at_once_starts_the_limit_at_four(tmp_path: Path) -> None:
    model = ModelConfig(name="quota", base_url="http://quota.test/v1", api_key_env=KEY_ENV)
    backend = LLMBackend(
        LLMConfig(models={"m": model}, roles={"default": "m"}),
        [tmp_path / "calls.sqlite"],
        provider=lambda cfg: RefusesCrowds(4),
    )
    try:
        [found] = asyncio.run(backend.check())
    finally:
        backend.close()
    assert [level for level, _ in found.parallel] == [1, 2, 4, 8]
    assert found.parallel[-1][1] == math.inf and found.start == 4
