"""A flex tier's busy answers: waited out without spending a call's retries, then sent on the
default tier where the settings allow it, or a stop that says what to set."""

import asyncio
from dataclasses import replace

import pytest

from recmarket.agents.llm.api import ChatRequest, ProviderError, Reply
from recmarket.agents.llm.config import ModelConfig
from recmarket.agents.llm.pace import CEILING, Pace, deadline
from recmarket.agents.llm.wrappers import EndpointFailure, Retrying
from recmarket.testing.fake_provider import FakeChatAPI

FLEX = ModelConfig(
    name="m", base_url="http://fake/v1", max_retries=1, service_tier="flex", flex_wait=0.2
)


def request(tier: str | None = "flex") -> ChatRequest:
    return ChatRequest(
        "update", [{"role": "user", "content": "hi"}], 8, 0.0, None, service_tier=tier
    )


def busy() -> ProviderError:
    return ProviderError("HTTP 429: busy", retryable=True, retry_after=0.01, rate_limited=True)


def test_busy_flex_answers_spend_no_retries_and_are_counted() -> None:
    api = FakeChatAPI([busy(), busy(), busy(), "done"])  # three busy, max_retries 1
    reply = asyncio.run(Retrying(api.generate, FLEX, None)(request()))
    assert reply.text == "done" and reply.busy == 3 and reply.tier == "flex"
    assert [r.service_tier for r in api.requests] == ["flex"] * 4


def test_a_call_busy_past_flex_wait_falls_back_to_the_default_tier_when_allowed() -> None:
    cfg = FLEX.model_copy(update={"flex_fallback": True, "flex_wait": 0.05})
    sent: list[str | None] = []

    async def flex_always_busy(sent_request: ChatRequest) -> Reply:
        sent.append(sent_request.service_tier)
        if sent_request.service_tier == "flex":
            raise busy()
        return Reply("done", 1, 1)

    reply = asyncio.run(Retrying(flex_always_busy, cfg, None)(request()))
    assert reply.text == "done" and reply.tier == "default" and reply.busy == len(sent) - 1
    assert sent[-1] == "default" and set(sent[:-1]) == {"flex"} and len(sent) > 2


def test_a_call_busy_past_flex_wait_stops_the_run_naming_the_setting() -> None:
    api = FakeChatAPI([busy()] * 400)
    with pytest.raises(EndpointFailure, match=r"flex_wait\); set flex_fallback = true"):
        asyncio.run(
            Retrying(api.generate, FLEX.model_copy(update={"flex_wait": 0.05}), None)(request())
        )


def test_a_429_on_the_default_tier_is_an_ordinary_retry() -> None:
    api = FakeChatAPI([busy(), busy(), "done"])
    with pytest.raises(EndpointFailure, match="still after 1 retries"):
        asyncio.run(Retrying(api.generate, FLEX, None)(request(tier=None)))


def test_a_flex_call_gets_the_longest_deadline_since_it_may_queue() -> None:
    pace = Pace(fixed=0.1, tokens_per_second=500.0)
    plain = ModelConfig(name="m")
    assert deadline(plain, pace, request(None))[0] < CEILING
    seconds, how = deadline(plain, pace, request("flex"))
    assert seconds == CEILING and "flex" in how
    fixed = plain.model_copy(update={"timeout": 40.0})
    assert deadline(fixed, pace, replace(request(), service_tier="flex"))[0] == 40.0


def test_the_openai_provider_sends_the_tier_and_reads_a_busy_flex_answer_as_no_overload() -> None:
    from recmarket.agents.llm.openai_api import OpenAIChatAPI, flex_busy

    body = OpenAIChatAPI(FLEX).body(request())
    assert body["service_tier"] == "flex" and "service_tier" not in OpenAIChatAPI(FLEX).body(
        request(None)
    )
    seen = flex_busy(busy(), request())
    assert seen.rate_limited and not seen.overload and "flex tier is busy" in seen.cause
    assert flex_busy(busy(), request(None)).overload  # a plain 429: too many calls at once


def test_the_tier_and_the_batch_mode_are_not_in_the_runs_identity() -> None:
    """Infrastructure, like the endpoint: a run may switch either and resume."""
    from recmarket.agents.llm.config import LLMConfig
    from recmarket.config import RunConfig

    def identity(model: ModelConfig, **llm: object) -> str:
        return RunConfig(
            llm=LLMConfig(models={"m": model}, roles={"default": "m"}, **llm)  # type: ignore[arg-type]
        ).digest()

    plain = identity(ModelConfig(name="m"))
    assert plain == identity(
        FLEX.model_copy(update={"name": "m", "base_url": ModelConfig(name="m").base_url})
    )
    assert plain == identity(ModelConfig(name="m"), mode="batch", batch_poll=5.0)
    assert plain != identity(ModelConfig(name="m", temperature=0.5))
