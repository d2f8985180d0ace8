"""The adaptive concurrency limit: where it starts, how it moves, and what it does against
loopback servers with one slot and with 64."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from recmarket.agents.llm.adaptive import PROBE_LEVELS, AdaptiveLimit, start_from
from recmarket.agents.llm.cache import CallCache
from recmarket.agents.llm.client import ChatModel
from recmarket.agents.llm.config import ModelConfig
from recmarket.agents.llm.ledger import Ledger, SpendAccount
from recmarket.agents.llm.openai_api import OpenAIChatAPI
from recmarket.testing.fake_llm import FakeLLM

KEY_ENV = "RECMARKET_TEST_ADAPTIVE_KEY"


@pytest.fixture(autouse=True)
def api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, "sk-test")


def test_the_start_is_the_last_level_that_kept_the_single_call_latency() -> None:
    serial = [(1, 0.1), (2, 0.2)]  # one slot: two calls take twice as long
    assert start_from(serial, maximum=64) == 1
    flat = [(1, 0.1), (2, 0.11), (4, 0.1), (8, 0.12), (16, 0.13)]
    assert start_from(flat, maximum=64) == 16
    assert start_from(flat, maximum=6) == 6
    assert start_from([(1, 0.1), (2, 0.1), (4, 0.1), (8, 0.4)], maximum=64) == 4


def test_slots_go_to_the_most_urgent_waiter_first() -> None:
    order: list[str] = []

    async def main() -> None:
        limit = AdaptiveLimit(1, adaptive=False)
        held = await limit.acquire((1,))  # the only slot is taken

        async def wait(name: str, urgency: tuple[int, ...]) -> None:
            ticket = await limit.acquire(urgency)
            order.append(name)
            limit.released(ticket)

        tasks = [
            asyncio.create_task(wait("prepare", (1,))),
            asyncio.create_task(wait("decide", (0,))),
        ]
        await asyncio.sleep(0)
        limit.released(held)
        await asyncio.gather(*tasks)

    asyncio.run(main())
    assert order == ["decide", "prepare"]


def test_one_overload_cuts_the_limit_once_however_many_calls_it_fails() -> None:
    async def main() -> AdaptiveLimit:
        limit = AdaptiveLimit(64, start=16)
        tickets = [await limit.acquire((1,)) for _ in range(8)]
        for ticket in tickets:  # eight timeouts of calls sent before the cut
            limit.overloaded(ticket)
        return limit

    limit = asyncio.run(main())
    assert limit.current == 8 and limit.in_flight == 0


def test_rising_latency_shrinks_the_limit_and_steady_latency_grows_it() -> None:
    async def window(limit: AdaptiveLimit, seconds: float) -> None:
        tickets = [await limit.acquire((1,)) for _ in range(limit.current)]
        for ticket in tickets:
            limit.succeeded(ticket, "decide", seconds, 80, 10)

    async def main() -> tuple[int, int, int]:
        limit = AdaptiveLimit(64, start=4)
        await window(limit, 1.0)
        grown = limit.current  # slow start: doubled
        await window(limit, 5.0)  # five times the expected latency: calls queue at the endpoint
        shrunk = limit.current
        await window(limit, 1.0)
        return grown, shrunk, limit.current

    grown, shrunk, after = asyncio.run(main())
    assert grown == 8 and shrunk == 6 and after == 7  # additive once slow start ended


def test_calls_of_unequal_length_at_a_steady_endpoint_do_not_shrink_it() -> None:
    """An endpoint that answers every call in one second, whatever its length, as the
    check measured for one tiny call: per unit of work the short calls look several times
    slower than the long ones, but that is the fixed cost of a call, not a queue, so the
    limit keeps growing while it is reached. Without the fixed cost it shrinks."""

    async def main(measured: list[tuple[int, float]] | None) -> list[int]:
        limit = AdaptiveLimit(64, start=4)
        if measured is not None:
            limit.begin_from(measured)  # starts at 4 too
        seen = []
        for _ in range(6):
            tickets = [await limit.acquire((1,)) for _ in range(limit.current)]
            for number, ticket in enumerate(tickets):
                limit.succeeded(ticket, "query", 1.0, 80 + 160 * (number % 5), 10)
            seen.append(limit.current)
        return seen

    assert asyncio.run(main([(1, 1.0), (2, 1.0), (4, 1.0)])) == [8, 16, 32, 64, 64, 64]
    assert asyncio.run(main(None))[-1] < 4  # read as pace alone, the spread looks like a queue


def test_a_fixed_limit_never_moves() -> None:
    async def main() -> int:
        limit = AdaptiveLimit(5, start=1, adaptive=False)
        for _ in range(3):
            tickets = [await limit.acquire((1,)) for _ in range(5)]
            for ticket in tickets:
                limit.overloaded(ticket)
        return limit.current

    assert asyncio.run(main()) == 5


def model_at(server: FakeLLM, tmp_path: Path, limits: list[int], **cfg) -> ChatModel:
    config = ModelConfig(
        name="fake-model", base_url=server.base_url, api_key_env=KEY_ENV, structured="off", **cfg
    )
    limit = AdaptiveLimit(
        config.concurrency, adaptive=config.adaptive_concurrency, on_change=limits.append
    )
    tmp_path.mkdir(exist_ok=True)
    return ChatModel(
        config,
        OpenAIChatAPI(config),
        CallCache([tmp_path / "calls.sqlite"]),
        Ledger(SpendAccount(None, None)),
        limit,
    )


def drive(model: ChatModel, calls: int) -> None:
    """The endpoint check's measurement, then ``calls`` distinct calls at once."""

    async def go() -> None:
        try:
            measured = await model.measure_parallel(PROBE_LEVELS)
            model.limit.begin_from(measured)
            card = {"role": "system", "content": "You simulate final user purchase decisions"}
            messages = [[card, {"role": "user", "content": f"call {i}"}] for i in range(calls)]
            await asyncio.gather(*(model.complete("decide", m, 0) for m in messages))
        finally:
            await model.aclose()

    asyncio.run(go())


@pytest.mark.slow  # end to end against the loopback fake: .ci/run -m slow
def test_against_64_slots_the_limit_climbs_past_48(tmp_path: Path) -> None:
    limits: list[int] = []
    # 0.4 s a call, so that the loopback server's own overhead on a loaded two-core runner
    # stays well inside RISE and is not read as queueing
    with FakeLLM(slots=64, latency=0.4) as server:
        drive(model_at(server, tmp_path, limits), calls=400)
    assert max(limits) >= 48, limits


def one_slot(limit: AdaptiveLimit, windows: int, service: float, timeout: float) -> list[int]:
    """``windows`` rounds of ``limit.current`` calls sent at once to an endpoint with one slot,
    on a clock of its own: the k-th call in line answers after k services, or times out (an
    overload) past ``timeout``. The calls timed out in each round."""
    timed_out = []

    async def main() -> None:
        for _ in range(windows):
            tickets = [await limit.acquire((1,)) for _ in range(limit.current)]
            late = 0
            for place, ticket in enumerate(tickets, start=1):
                if place * service > timeout:
                    limit.overloaded(ticket)
                    late += 1
                else:
                    limit.succeeded(ticket, "decide", place * service, 80, 10)
            timed_out.append(late)

    asyncio.run(main())
    return timed_out


def test_against_one_slot_the_limit_stays_near_it_where_a_fixed_limit_times_out() -> None:
    """A one-slot endpoint answering in 0.05 s, a timeout of 0.625 s (twelve in line): the
    adaptive limit starts at the one slot the check measured, never climbs far above it,
    and no call times out; sixteen at once, as a fixed limit sends them, time out four."""
    limits: list[int] = []
    adaptive = AdaptiveLimit(64, on_change=limits.append)
    adaptive.begin_from([(1, 0.05), (2, 0.1)])
    assert sum(one_slot(adaptive, windows=200, service=0.05, timeout=0.625)) == 0
    assert max(limits, default=adaptive.current) <= 4
    fixed = AdaptiveLimit(16, adaptive=False)
    assert one_slot(fixed, windows=3, service=0.05, timeout=0.625) == [4, 4, 4]
