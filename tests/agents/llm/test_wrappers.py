"""Each layer around a provider, alone, against the in-process fake provider."""

import asyncio
import time
from dataclasses import replace
from pathlib import Path

import pytest

from recmarket.agents.llm import wrappers
from recmarket.agents.llm.adaptive import AdaptiveLimit
from recmarket.agents.llm.api import ChatRequest, ProviderError
from recmarket.agents.llm.cache import CallCache
from recmarket.agents.llm.client import ChatModel, ReplayMiss
from recmarket.agents.llm.config import ModelConfig
from recmarket.agents.llm.ledger import BudgetExceeded, Ledger, SpendAccount
from recmarket.agents.llm.wrappers import (
    STREAM_LEFT,
    Budgeted,
    Deadline,
    EndpointFailure,
    Limited,
    Retrying,
)
from recmarket.testing.fake_provider import FakeChatAPI

CFG = ModelConfig(name="m", base_url="http://fake/v1", max_retries=3, input_price=1e6)
MESSAGES = [{"role": "system", "content": "s"}, {"role": "user", "content": "hello"}]


def request(role: str = "update", text: str = "hello") -> ChatRequest:
    return ChatRequest(role, [{"role": "user", "content": text}], 8, 0.0, None)


def busy(after: float = 0.0) -> ProviderError:
    return ProviderError("HTTP 503: busy", retryable=True, retry_after=after)


def test_retrying_counts_the_attempts_that_failed_before_the_answer() -> None:
    api = FakeChatAPI([busy(), busy(), "done"])
    reply = asyncio.run(Retrying(api.generate, CFG, None)(request()))
    assert reply.text == "done" and reply.retries == 2 and len(api.requests) == 3


def test_retrying_stops_at_once_on_what_a_retry_cannot_fix() -> None:
    api = FakeChatAPI([ProviderError("the key was refused (HTTP 401)", retryable=False)])
    with pytest.raises(EndpointFailure, match=r"http://fake/v1, model m: the key was refused"):
        asyncio.run(Retrying(api.generate, CFG, None)(request()))
    assert len(api.requests) == 1


def test_retrying_gives_up_when_a_calls_retries_are_spent() -> None:
    api = FakeChatAPI([busy()] * 10)
    with pytest.raises(EndpointFailure, match="busy, still after 3 retries"):
        asyncio.run(Retrying(api.generate, CFG, None)(request()))
    assert len(api.requests) == 4


def test_failed_retries_in_a_row_are_counted_across_calls_and_reset_by_a_success() -> None:
    cfg = CFG.model_copy(update={"max_failures_in_a_row": 2, "max_retries": 10})
    api = FakeChatAPI([busy(), busy(), "ok", busy(), busy(), busy(), busy()])
    retrying = Retrying(api.generate, cfg, None)
    assert asyncio.run(retrying(request())).text == "ok"  # one failed retry, then reset
    with pytest.raises(EndpointFailure, match="3 failed retries in a row"):
        asyncio.run(retrying(request()))
    assert len(api.requests) == 7  # the second call's first attempt and three retries


def test_a_proxy_that_fails_every_first_attempt_never_stops_the_run() -> None:
    """Failed first attempts are not a streak: every retry passes, so every call does."""
    cfg = CFG.model_copy(update={"max_failures_in_a_row": 1})
    api = FakeChatAPI([busy(), "ok"] * 20)
    retrying = Retrying(api.generate, cfg, None)
    answers = [asyncio.run(retrying(request())) for _ in range(20)]
    assert all(a.text == "ok" and a.retries == 1 for a in answers)
    assert [r.attempt for r in api.requests[:4]] == [0, 1, 0, 1]


def test_failed_retries_in_a_row_count_against_the_limit_now_in_force() -> None:
    """Two rounds of the calls the limit now allows (5, not the configured 64), and at
    least two rounds of four under a limit cut lower."""
    cfg = CFG.model_copy(update={"max_retries": 20})
    cut = Retrying(FakeChatAPI([busy()] * 12).generate, cfg, None, in_flight=lambda: 5)
    with pytest.raises(EndpointFailure, match="11 failed retries in a row"):
        asyncio.run(cut(request()))
    floor = Retrying(FakeChatAPI([busy()] * 12).generate, cfg, None, in_flight=lambda: 1)
    with pytest.raises(EndpointFailure, match="9 failed retries in a row"):
        asyncio.run(floor(request()))


def test_limited_holds_at_most_its_slots_in_flight() -> None:
    api = FakeChatAPI(latency=0.02)
    peak = {"now": 0, "max": 0}

    async def counting(req: ChatRequest):
        peak["now"] += 1
        peak["max"] = max(peak["max"], peak["now"])
        try:
            return await api.generate(req)
        finally:
            peak["now"] -= 1

    limited = Limited(counting, AdaptiveLimit(3, adaptive=False))

    async def main() -> None:
        await asyncio.gather(*(limited(request(text=str(i))) for i in range(12)))

    asyncio.run(main())
    assert peak["max"] == 3 and len(api.requests) == 12


def one_slot() -> tuple[list[str], AdaptiveLimit, Limited]:
    """A fixed limit of one slot over the fake provider, and the order calls were served
    in (by their first message)."""
    api = FakeChatAPI(latency=0.01)
    served: list[str] = []

    async def record(req: ChatRequest):
        served.append(req.messages[0]["content"])
        return await api.generate(req)

    limit = AdaptiveLimit(1, adaptive=False)
    return served, limit, Limited(record, limit)


def test_limited_serves_urgent_roles_first_then_the_longest_remaining_stream() -> None:
    """With the one slot taken, waiters get it by role class, then by the episodes left
    in their stream (more first), then in the order they came."""
    served, limit, limited = one_slot()

    async def call(role: str, left: int, name: str) -> None:
        STREAM_LEFT.set(left)  # this task's own context, as each stream's task has
        await limited(request(role, name))

    async def main() -> None:
        held = await limit.acquire((0, 0))
        waiting = [
            asyncio.create_task(call("explain", 9, "prepare")),
            asyncio.create_task(call("decide", 2, "short")),
            asyncio.create_task(call("review", 7, "long")),
            asyncio.create_task(call("shortlist", 2, "short-later")),
        ]
        await asyncio.sleep(0.01)
        limit.released(held)
        await asyncio.gather(*waiting)

    asyncio.run(main())
    assert served == ["long", "short", "short-later", "prepare"]


def test_a_retry_takes_the_slot_before_first_attempts_that_came_earlier() -> None:
    """A retry that slept out its backoff is not queued behind calls not yet tried, so
    under a limit cut to one slot new calls cannot keep taking it while retries sleep."""
    served, limit, limited = one_slot()

    async def main() -> None:
        held = await limit.acquire((0, 0, 0))
        first = [asyncio.create_task(limited(request("review", f"new {i}"))) for i in range(3)]
        await asyncio.sleep(0.01)
        retry = asyncio.create_task(limited(replace(request("explain", "retry"), attempt=1)))
        await asyncio.sleep(0.01)
        limit.released(held)
        await asyncio.gather(*first, retry)

    asyncio.run(main())
    assert served == ["retry", "new 0", "new 1", "new 2"]


def test_budgeted_refuses_what_the_budget_cannot_cover_and_charges_what_was_used() -> None:
    account = SpendAccount(None, budget=30.0)  # CFG: $1 per prompt character
    budgeted = Budgeted(FakeChatAPI(latency=0.01).generate, CFG, account)

    async def main() -> None:
        await budgeted(request(text="x" * 8))  # reserves 8, is charged 8 // 4 = 2
        with pytest.raises(BudgetExceeded, match=r"\$2\.0000 spent so far"):
            await budgeted(request(text="x" * 40))  # could cost 40

    asyncio.run(main())
    assert account.spent == pytest.approx(2.0)


def test_the_budget_stop_reports_the_spend_of_the_calls_that_were_in_flight() -> None:
    account = SpendAccount(None, budget=30.0)  # CFG: $1 per prompt character
    budgeted = Budgeted(FakeChatAPI(latency=0.2).generate, CFG, account)

    async def main() -> None:
        landing = asyncio.create_task(budgeted(request(text="x" * 20)))  # charged 5
        await asyncio.sleep(0.05)  # it is in flight, holding its reservation of 20
        with pytest.raises(BudgetExceeded, match=r"\$5\.0000 spent so far"):
            await budgeted(request(text="x" * 12))  # 20 + 12 > 30: refused
        assert landing.done()  # the stop waited for it

    asyncio.run(main())


def test_a_deadline_bounds_the_whole_attempt_and_shows_a_long_wait(monkeypatch) -> None:
    monkeypatch.setattr(wrappers, "VISIBLE_WAIT", 0.05)
    notices: list[str] = []
    slow = FakeChatAPI(latency=0.5)
    cut = Deadline(slow.generate, CFG.model_copy(update={"timeout": 0.2}), notices.append)
    start = time.monotonic()
    with pytest.raises(ProviderError, match=r"within the deadline of 0\.2 s") as e:
        asyncio.run(cut(request()))
    assert e.value.retryable and e.value.overload  # a slow endpoint is retried, limited
    assert time.monotonic() - start < 0.45
    assert notices == ["m: waiting for an answer, up to 0.2 s", ""]  # shown, then cleared
    quick = Deadline(FakeChatAPI().generate, CFG.model_copy(update={"timeout": 0.2}), None)
    assert asyncio.run(quick(request())).text


def model(tmp_path: Path, api: FakeChatAPI, replay: bool = False) -> ChatModel:
    cache = CallCache([tmp_path / "calls.sqlite"])
    ledger = Ledger(SpendAccount(None, None))
    return ChatModel(CFG, api, cache, ledger, AdaptiveLimit(4, adaptive=False), replay=replay)


def test_the_call_store_answers_an_identical_request_without_the_provider(tmp_path) -> None:
    api = FakeChatAPI(["first answer"])
    first = model(tmp_path, api)
    assert asyncio.run(first.complete("update", MESSAGES, sample=1)) == "first answer"
    again = model(tmp_path, FakeChatAPI(["never sent"]))
    assert asyncio.run(again.complete("update", MESSAGES, sample=1)) == "first answer"
    assert again.api.requests == [] and again.ledger.rows[("update", "m")].cached == 1
    other_sample = asyncio.run(again.complete("update", MESSAGES, sample=2))
    assert other_sample == "never sent"


def test_replay_refuses_to_call_the_provider(tmp_path: Path) -> None:
    api = FakeChatAPI()
    with pytest.raises(ReplayMiss, match="no stored answer for a decide call"):
        asyncio.run(model(tmp_path, api, replay=True).complete("decide", MESSAGES, sample=0))
    assert api.requests == []


def test_the_endpoint_check_is_never_charged(tmp_path: Path) -> None:
    api = FakeChatAPI(["OK"])
    checked = model(tmp_path, api)
    asyncio.run(checked.check())
    assert api.requests[0].max_tokens == 1 and checked.ledger.account.spent == 0
