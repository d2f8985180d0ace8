"""Chat calls to any OpenAI-compatible endpoint: cached, retried, limited, accounted.

The wrapper owns what every backend call needs, so role code stays small: the call store
(served first; ``replay`` forbids anything else), the per-endpoint concurrency limit, the
retry loop with exponential backoff, full jitter and a capped Retry-After, the limit on
failures in a row, the budget reservation, and the token and cost ledger. API keys are
read from the environment when the endpoint is first used and live only inside the SDK
client object; they are never stored, logged or reported.
"""

from __future__ import annotations

import asyncio
import os
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import openai
from openai.types.chat import ChatCompletion

from recmarket.agents.llm.cache import CachedCall, CallCache, call_key
from recmarket.agents.llm.config import ModelConfig
from recmarket.agents.llm.ledger import BudgetExceeded, Ledger, price, worst_case
from recmarket.agents.llm.transport import ReplyTooLarge, bounded_client

RETRYABLE_STATUS = {408, 409, 425, 429, 500, 502, 503, 504}
# The one cheap call that checks an endpoint's key, URL and model before a run.
CHECK_MESSAGES = (
    {"role": "system", "content": "recmarket endpoint check."},
    {"role": "user", "content": "Reply with OK."},
)
BACKOFF_BASE, BACKOFF_CAP = 0.5, 30.0
VISIBLE_WAIT = 10.0  # seconds: longer waits are announced on the progress line


class ReplayMiss(RuntimeError):
    """--replay found no stored answer for a call; the run stops before any network use."""


class EndpointFailure(RuntimeError):
    """Infrastructure, not a result: the endpoint refused the key, the model or the request,
    could not be reached, or kept failing after every retry. The run stops with this one
    line and commits nothing for unfinished episodes; the same command resumes once the
    cause is fixed. Only a model that answered and stayed invalid is an episode failure."""

    @classmethod
    def at(cls, cfg: ModelConfig, cause: str) -> EndpointFailure:
        return cls(f"endpoint {cfg.base_url}, model {cfg.name}: {cause}")


def _retry_after(exc: Exception) -> float | None:
    response = getattr(exc, "response", None)
    value = response.headers.get("retry-after") if response is not None else None
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


class MalformedReply(ValueError):
    """A 200 reply that is not a chat completion (no choices, no message); retried."""


def _reply_text(response: object) -> str:
    """The answer's text, or MalformedReply saying what the reply lacked."""
    choices = getattr(response, "choices", None)
    if not isinstance(choices, list) or not choices:
        raise MalformedReply("a reply without choices")
    message = getattr(choices[0], "message", None)
    content = getattr(message, "content", None) if message is not None else None
    if message is None or not isinstance(content, str | None):
        raise MalformedReply("a reply without a message")
    return content or ""


def _trusted_usage(
    response: ChatCompletion, messages: list[dict[str, str]], max_tokens: int
) -> tuple[int, int]:
    """Token counts as reported, but never more than the request allows: a completion is at
    most max_tokens, a prompt at most one token per character sent (the ledger and the
    budget must not trust a claimed 10^12)."""
    usage = response.usage
    if usage is None:
        return 0, 0
    sent = sum(len(m["content"]) for m in messages)
    prompt = min(max(int(usage.prompt_tokens or 0), 0), sent)
    completion = min(max(int(usage.completion_tokens or 0), 0), max_tokens)
    return prompt, completion


def _cause(exc: Exception) -> str:
    """What went wrong, in words a user can act on."""
    if isinstance(exc, openai.AuthenticationError | openai.PermissionDeniedError):
        return f"the key was refused (HTTP {exc.status_code}); check the key and its variable"
    if isinstance(exc, openai.NotFoundError):
        return "not found (HTTP 404): check the base URL and the model name"
    if isinstance(exc, openai.APITimeoutError):
        return "no answer within the timeout"
    if isinstance(exc, openai.APIConnectionError):
        cause = exc.__cause__ or exc
        return f"cannot connect ({type(cause).__name__}: {cause})"
    if isinstance(exc, openai.APIStatusError):
        return f"HTTP {exc.status_code}: {exc.message}"
    if isinstance(exc, ReplyTooLarge | openai.APIResponseValidationError | ValueError):
        return f"malformed replies ({exc}); is the base URL an OpenAI-compatible endpoint?"
    return f"{type(exc).__name__}: {exc}"


def _retryable(exc: Exception) -> bool:
    if isinstance(
        exc,
        openai.APITimeoutError
        | openai.APIConnectionError
        | openai.APIResponseValidationError
        | ReplyTooLarge
        | ValueError,
    ):
        return True  # ValueError: a malformed reply, which a retry may not repeat
    return isinstance(exc, openai.APIStatusError) and exc.status_code in RETRYABLE_STATUS


def _rate_limited(exc: Exception) -> bool:
    return isinstance(exc, openai.APIStatusError) and exc.status_code == 429


# Told about every wait long enough to notice ("" once it is over).
WaitNotice = Callable[[str], None]


@dataclass
class ChatModel:
    """One configured model, shared by every role that uses it."""

    cfg: ModelConfig
    cache: CallCache
    ledger: Ledger
    limit: asyncio.Semaphore
    replay: bool = False
    on_wait: WaitNotice | None = None
    _client: openai.AsyncOpenAI | None = None
    _failures_in_a_row: int = 0  # failed attempts (not 429s) since any call last succeeded

    def client(self) -> openai.AsyncOpenAI:
        if self._client is None:
            key = os.environ.get(self.cfg.api_key_env)
            if not key:
                raise EndpointFailure.at(
                    self.cfg, f"the API key variable {self.cfg.api_key_env} is not set"
                )
            self._client = openai.AsyncOpenAI(
                api_key=key,
                base_url=self.cfg.base_url,
                max_retries=0,
                timeout=self.cfg.timeout,
                http_client=bounded_client(self.cfg.concurrency, self.cfg.max_reply_bytes),
            )
        return self._client

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None

    @property
    def params(self) -> dict[str, Any]:
        return {"temperature": self.cfg.temperature, "max_tokens": self.cfg.max_tokens}

    async def check(self) -> float:
        """One tiny call, retried like any other: seconds it took, or EndpointFailure naming
        the endpoint, the model and what is wrong. Never stored, never charged to a run."""
        start = time.monotonic()
        async with self.limit:
            await self._call([dict(m) for m in CHECK_MESSAGES], 0, max_tokens=1)
        return time.monotonic() - start

    async def complete(self, role: str, messages: list[dict[str, str]], sample: int) -> str:
        key = call_key(self.cfg.name, self.cfg.base_url, messages, self.params, sample)
        hit = self.cache.get(key)
        if hit is not None:
            self.ledger.add(role, self.cfg, hit, cached=True)
            return hit.response
        if self.replay:
            raise ReplayMiss(
                f"--replay: no stored answer for a {role} call to {self.cfg.name} "
                f"(key {key[:12]}); run without --replay to make it"
            )
        call = await self._paid_call(messages, sample)
        self.cache.put(
            key, role, self.cfg.name, self.cfg.base_url, messages, self.params, sample, call
        )
        self.ledger.add(role, self.cfg, call, cached=False)
        return call.response

    async def _paid_call(self, messages: list[dict[str, str]], sample: int) -> CachedCall:
        """A call inside its worst-case reservation. When the budget cannot cover it, the
        calls already in flight are let finish (they are paid for and will be stored)
        before BudgetExceeded stops the run."""
        ledger = self.ledger
        reserved = worst_case(self.cfg, messages, self.cfg.max_tokens)
        try:
            ledger.account.reserve(reserved)
        except BudgetExceeded:
            while ledger.in_flight:
                await asyncio.sleep(0.05)
            raise
        ledger.in_flight += 1
        cost = reserved  # a call cut off in flight may have been charged: count its worst
        try:
            async with self.limit:
                call = await self._call(messages, sample % 2**31)
            cost = price(self.cfg, *call.tokens)
            return call
        except EndpointFailure:
            cost = 0.0  # refused or never answered
            raise
        finally:
            ledger.in_flight -= 1
            ledger.account.settle(reserved, cost)

    async def _call(
        self, messages: list[dict[str, str]], sample: int, max_tokens: int | None = None
    ) -> CachedCall:
        start = time.monotonic()
        params = {**self.params, **({"max_tokens": max_tokens} if max_tokens else {})}
        for attempt in range(self.cfg.max_retries + 1):
            try:
                body = {"model": self.cfg.name, "messages": messages, **params}
                if self.cfg.send_seed:
                    body["seed"] = sample
                # The SDK's low-level post: the same request, response type and errors as
                # chat.completions.create, without re-walking our already-plain messages
                # through its typed parameter transform (a third of the client's CPU).
                response = await self.client().post(
                    "/chat/completions", body=body, cast_to=ChatCompletion
                )
                text = _reply_text(response)
            except (openai.APIError, ReplyTooLarge, ValueError) as exc:
                await self._after_failure(exc, attempt)
                continue
            self._failures_in_a_row = 0
            prompt, completion = _trusted_usage(response, messages, params["max_tokens"])
            return CachedCall(
                response=text,
                prompt_tokens=prompt,
                completion_tokens=completion,
                latency=time.monotonic() - start,
                retries=attempt,
            )
        raise AssertionError("unreachable")

    async def _after_failure(self, exc: Exception, attempt: int) -> None:
        """Raise EndpointFailure when the failure is final (not retryable, this call's
        retries spent, or too many failures in a row across calls: a dead endpoint stops
        the run after one round of timeouts, not after every call has tried them all);
        else wait (Retry-After, capped, or backoff with full jitter) before the retry."""
        if not _rate_limited(exc):  # a 429 is the endpoint working: its own retries bound it
            self._failures_in_a_row += 1
        if not _retryable(exc):
            raise EndpointFailure.at(self.cfg, _cause(exc)) from exc
        if attempt == self.cfg.max_retries:
            raise EndpointFailure.at(
                self.cfg, f"{_cause(exc)}, still after {attempt} retries"
            ) from exc
        if self._failures_in_a_row > self.cfg.failure_limit:
            raise EndpointFailure.at(
                self.cfg,
                f"{_cause(exc)}; {self._failures_in_a_row} failed attempts in a row "
                f"(max_failures_in_a_row is {self.cfg.failure_limit})",
            ) from exc
        delay = _retry_after(exc)
        if delay is None:
            delay = random.uniform(0, min(BACKOFF_CAP, BACKOFF_BASE * 2**attempt))
        delay = min(delay, self.cfg.retry_after_cap)
        visible = self.on_wait is not None and delay > VISIBLE_WAIT
        if visible:
            self.on_wait(f"{self.cfg.name}: waiting {delay:.0f} s after {_cause(exc)}")
        await asyncio.sleep(delay)
        if visible:
            self.on_wait("")
