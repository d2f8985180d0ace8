"""Chat calls to any OpenAI-compatible endpoint: cached, retried, limited, accounted.

The wrapper owns what every backend call needs, so role code stays small: the call store
(served first; ``replay`` forbids anything else), the per-endpoint concurrency limit, the
retry loop with exponential backoff, full jitter and Retry-After, the budget, and the token
and cost ledger. API keys are read from the environment when the endpoint is first used
and live only inside the SDK client object; they are never stored, logged or reported.
"""

from __future__ import annotations

import asyncio
import os
import random
import time
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import openai
from openai.types.chat import ChatCompletion

from recmarket.agents.llm.cache import CachedCall, CallCache, call_key
from recmarket.agents.llm.config import ModelConfig

RETRYABLE_STATUS = {408, 409, 425, 429, 500, 502, 503, 504}
# The one cheap call that checks an endpoint's key, URL and model before a run.
CHECK_MESSAGES = (
    {"role": "system", "content": "recmarket endpoint check."},
    {"role": "user", "content": "Reply with OK."},
)
BACKOFF_BASE, BACKOFF_CAP = 0.5, 30.0


class ReplayMiss(RuntimeError):
    """--replay found no stored answer for a call; the run stops before any network use."""


class BudgetExceeded(RuntimeError):
    """The configured spending limit is reached; the run stops cleanly and can resume."""


class BudgetWithoutPrices(ValueError):
    """--budget for a model whose prices are unknown could never stop anything."""


class EndpointFailure(RuntimeError):
    """Infrastructure, not a result: the endpoint refused the key, the model or the request,
    could not be reached, or kept failing after every retry. The run stops with this one
    line and commits nothing for unfinished episodes; the same command resumes once the
    cause is fixed. Only a model that answered and stayed invalid is an episode failure."""

    @classmethod
    def at(cls, cfg: ModelConfig, cause: str) -> EndpointFailure:
        return cls(f"endpoint {cfg.base_url}, model {cfg.name}: {cause}")


@dataclass
class Usage:
    calls: int = 0
    cached: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0
    retries: int = 0


@dataclass
class Ledger:
    """Tokens and cost per (role, model), and the spending limit."""

    budget: float | None = None
    rows: dict[tuple[str, str], Usage] = field(default_factory=lambda: defaultdict(Usage))

    @property
    def spent(self) -> float:
        return sum(u.cost for u in self.rows.values())

    def check(self) -> None:
        if self.budget is not None and self.spent >= self.budget:
            raise BudgetExceeded(
                f"budget of ${self.budget:.2f} reached (spent "
                f"${self.spent:.4f}); rerun the same command to resume"
            )

    def add(self, role: str, cfg: ModelConfig, call: CachedCall, cached: bool) -> None:
        usage = self.rows[(role, cfg.name)]
        usage.calls += 1
        usage.cached += cached
        usage.prompt_tokens += call.prompt_tokens
        usage.completion_tokens += call.completion_tokens
        if not cached:
            usage.retries += call.retries
            usage.cost += (
                call.prompt_tokens * cfg.input_price + call.completion_tokens * cfg.output_price
            ) / 1e6


def _limits(concurrency: int) -> Any:
    """Connection limits in the HTTP library the openai SDK uses."""
    limits_type = type(openai._constants.DEFAULT_CONNECTION_LIMITS)
    return limits_type(max_connections=concurrency, max_keepalive_connections=concurrency)


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
    if isinstance(exc, MalformedReply | openai.APIResponseValidationError | ValueError):
        return f"malformed replies ({exc}); is the base URL an OpenAI-compatible endpoint?"
    return f"{type(exc).__name__}: {exc}"


def _retryable(exc: Exception) -> bool:
    if isinstance(
        exc,
        openai.APITimeoutError
        | openai.APIConnectionError
        | openai.APIResponseValidationError
        | ValueError,
    ):
        return True  # ValueError: a malformed reply, which a retry may not repeat
    return isinstance(exc, openai.APIStatusError) and exc.status_code in RETRYABLE_STATUS


@dataclass
class ChatModel:
    """One configured model, shared by every role that uses it."""

    cfg: ModelConfig
    cache: CallCache
    ledger: Ledger
    limit: asyncio.Semaphore
    replay: bool = False
    _client: openai.AsyncOpenAI | None = None

    def client(self) -> openai.AsyncOpenAI:
        if self._client is None:
            key = os.environ.get(self.cfg.api_key_env)
            if not key:
                raise EndpointFailure.at(
                    self.cfg, f"the API key variable {self.cfg.api_key_env} is not set"
                )
            # A pool no larger than the concurrency limit: the HTTP pool's bookkeeping grows
            # with its size, and more connections than calls in flight are never used.
            pool = openai.DefaultAsyncHttpxClient(limits=_limits(self.cfg.concurrency))
            self._client = openai.AsyncOpenAI(
                api_key=key,
                base_url=self.cfg.base_url,
                max_retries=0,
                timeout=self.cfg.timeout,
                http_client=pool,
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
        self.ledger.check()
        async with self.limit:
            call = await self._call(messages, sample % 2**31)
        self.cache.put(
            key, role, self.cfg.name, self.cfg.base_url, messages, self.params, sample, call
        )
        self.ledger.add(role, self.cfg, call, cached=False)
        return call.response

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
            except (openai.APIError, MalformedReply, ValueError) as exc:
                if not _retryable(exc):
                    raise EndpointFailure.at(self.cfg, _cause(exc)) from exc
                if attempt == self.cfg.max_retries:
                    raise EndpointFailure.at(
                        self.cfg, f"{_cause(exc)}, still after {attempt} retries"
                    ) from exc
                delay = _retry_after(exc)
                if delay is None:
                    delay = random.uniform(0, min(BACKOFF_CAP, BACKOFF_BASE * 2**attempt))
                await asyncio.sleep(min(delay, self.cfg.retry_after_cap))
                continue
            prompt, completion = _trusted_usage(response, messages, params["max_tokens"])
            return CachedCall(
                response=text,
                prompt_tokens=prompt,
                completion_tokens=completion,
                latency=time.monotonic() - start,
                retries=attempt,
            )
        raise AssertionError("unreachable")
