"""Any OpenAI-compatible endpoint as a ``ChatAPI``, through the openai SDK's public client.

The key is read from its environment variable when the endpoint is first used and lives
only inside the SDK client; it is never stored, logged or reported. Replies arrive through
the bounded transport (``transport.py``), so an oversized body is refused as it arrives.
Every SDK error becomes a ProviderError that says what is wrong and whether to retry.
"""

from __future__ import annotations

import json
import os
from typing import Any

import openai

from recmarket.agents.llm import credentials
from recmarket.agents.llm.api import ChatRequest, ProviderError, Reply, trusted_tokens
from recmarket.agents.llm.config import ModelConfig
from recmarket.agents.llm.pace import CEILING
from recmarket.agents.llm.transport import Elsewhere, ReplyTooLarge, bounded_client, http

EXCERPT = 80  # characters of a malformed body quoted in the stop line
# 498: Groq's flex tier at capacity, as OpenAI's answers 429
RETRYABLE_STATUS = {408, 409, 425, 429, 498, 500, 502, 503, 504}
BUSY_STATUS = {429, 498}
# What the HTTP library raises for a URL it cannot use at all (a scheme it does not speak,
# a malformed URL): reported at once, not retried as an endpoint that is down.
UNUSABLE_URL = (http.UnsupportedProtocol, http.InvalidURL)
OVERLOAD_STATUS = {408, 429, 500, 502, 503, 504}
# Fields of a ``/models`` entry that say nothing of the weights behind a name
PLAIN_FIELDS = {"id", "object", "owned_by", "permission", "permissions"}


def _retry_after(exc: Exception) -> float | None:
    response = getattr(exc, "response", None)
    value = response.headers.get("retry-after") if response is not None else None
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def _malformed(what: str) -> ProviderError:
    return ProviderError(
        f"malformed replies ({what}); is the base URL an OpenAI-compatible endpoint?",
        retryable=True,  # a retry may not repeat it
    )


def provider_error(exc: Exception) -> ProviderError:
    """What an SDK exception means for the run."""
    if isinstance(exc, openai.AuthenticationError | openai.PermissionDeniedError):
        cause = f"the key was refused (HTTP {exc.status_code}); check the key and its variable"
        return ProviderError(cause, retryable=False)
    if isinstance(exc, openai.NotFoundError):
        cause = "not found (HTTP 404): check the base URL and the model name"
        return ProviderError(cause, retryable=False)
    if isinstance(exc, openai.APITimeoutError):
        return ProviderError("no answer within the timeout", retryable=True, overload=True)
    if isinstance(exc, openai.APIConnectionError):
        inner = exc.__cause__ or exc
        if isinstance(inner, UNUSABLE_URL):  # no retry can mend the URL itself
            cause = f"the base URL cannot be used ({type(inner).__name__}: {inner})"
            return ProviderError(cause, retryable=False)
        cause = f"cannot connect ({type(inner).__name__}: {inner})"
        return ProviderError(cause, retryable=True, overload=True)
    if isinstance(exc, openai.APIStatusError):
        return ProviderError(
            f"HTTP {exc.status_code}: {exc.message}",
            retryable=exc.status_code in RETRYABLE_STATUS,
            retry_after=_retry_after(exc),
            rate_limited=exc.status_code in BUSY_STATUS,
            overload=exc.status_code in OVERLOAD_STATUS,
        )
    if isinstance(exc, Elsewhere):  # no retry makes the endpoint answer itself
        return ProviderError(str(exc), retryable=False)
    if isinstance(exc, json.JSONDecodeError):  # a body labelled JSON that is not
        return _malformed(_not_a_completion(exc.doc, " labelled as JSON"))
    if isinstance(exc, ReplyTooLarge | openai.APIResponseValidationError | ValueError):
        return _malformed(str(exc))
    return ProviderError(f"{type(exc).__name__}: {exc}", retryable=False)


def flex_busy(error: ProviderError, request: ChatRequest) -> ProviderError:
    """A flex call's 429 or 498 is the tier at capacity, not our calls too many at once:
    it is waited out (``Retrying``) without cutting the endpoint's concurrency limit."""
    if request.service_tier != "flex" or not error.rate_limited:
        return error
    cause = f"the flex tier is busy ({error.cause})"
    return ProviderError(
        cause, retryable=True, retry_after=error.retry_after, rate_limited=True, overload=False
    )


def _excerpt(text: str) -> str:
    return repr(" ".join(text.split())[:EXCERPT])


def _not_a_completion(body: str, labelled: str = "") -> str:
    """What a body that is no chat completion holds, in a few words and its start."""
    start = body.lstrip()[:200].lower()
    kind = (
        "an HTML page"
        if start.startswith(("<!doctype html", "<html", "<head", "<body"))
        else ("markup" if start.startswith("<") else "text that is not JSON")
    )
    return f"{kind}{labelled}, not a chat completion: {_excerpt(body)}"


def _said(error: Any) -> str:
    """A provider's error object as it words it (its ``message`` where it has one), quoted
    and cut short; the key, if echoed, is struck out by ``wrappers.Redacted``."""
    message = error.get("message", error) if isinstance(error, dict) else error
    text = message if isinstance(message, str) else json.dumps(message, default=str)
    return _excerpt(text)


def reply_text(response: Any) -> str:
    """The answer's text, or a ProviderError saying what the reply was instead."""
    if isinstance(response, str):  # the SDK hands back a body it could not read as JSON
        raise _malformed(_not_a_completion(response))
    choices = getattr(response, "choices", None)
    if not isinstance(choices, list):
        extra = getattr(response, "model_extra", None) or {}
        keys = sorted(extra.keys())
        holding = f" (its keys: {', '.join(keys)})" if keys else ""
        said = f"; it says {_said(extra['error'])}" if "error" in extra else ""
        raise _malformed(f"a JSON object without choices{holding}{said}")
    if not choices:
        raise _malformed("a completion with an empty list of choices")
    message = getattr(choices[0], "message", None)
    content = getattr(message, "content", None) if message is not None else None
    if message is None or not isinstance(content, str | None):
        raise _malformed("a completion whose choice has no message")
    return content or ""


def cached_tokens(usage: Any) -> int:
    """Prompt tokens the provider served from its prompt cache, where it says: OpenAI's
    ``prompt_tokens_details.cached_tokens`` or DeepSeek's ``prompt_cache_hit_tokens``;
    0 where it says nothing or something that is not a count."""
    if usage is None:
        return 0
    details = getattr(usage, "prompt_tokens_details", None)
    reported = getattr(details, "cached_tokens", None) if details is not None else None
    if reported is None:
        reported = (getattr(usage, "model_extra", None) or {}).get("prompt_cache_hit_tokens")
    return reported if isinstance(reported, int) and reported > 0 else 0


def sdk_client(
    cfg: ModelConfig, connections: int, reply_bytes: int, timeout: float
) -> openai.AsyncOpenAI:
    """The SDK's client for the model's endpoint, the key read from its variable now (a
    missing one is a ``ProviderError``), with no retries of its own (they are the
    Retrying wrapper's), at most ``connections`` at once and replies of ``reply_bytes``;
    credentials the base URL was given with go as it was given them (``credentials``)."""
    key = os.environ.get(cfg.api_key_env)
    if not key:
        cause = f"the API key variable {cfg.api_key_env} is not set"
        raise ProviderError(cause, retryable=False)
    url, query = credentials.sending(cfg.base_url)
    return openai.AsyncOpenAI(
        api_key=key,
        base_url=url,
        default_query=query or None,
        max_retries=0,
        timeout=timeout,
        http_client=bounded_client(connections, reply_bytes, cfg.base_url),
    )


def completion_reply(completion: Any, request: ChatRequest, tier: str | None) -> Reply:
    """A chat completion's answer and its trusted token counts (``trusted_tokens``), billed
    at ``tier``."""
    text = reply_text(completion)
    usage = completion.usage
    tokens = trusted_tokens(
        request,
        usage.prompt_tokens if usage else None,
        usage.completion_tokens if usage else None,
        text,
    )
    cached = min(cached_tokens(usage), tokens.prompt)
    return Reply(text, tokens.prompt, tokens.completion, 0, cached, tokens.estimated, tier)


class OpenAIChatAPI:
    """One model behind one OpenAI-compatible base URL."""

    def __init__(self, cfg: ModelConfig) -> None:
        self.cfg = cfg
        self._client: openai.AsyncOpenAI | None = None

    def client(self) -> openai.AsyncOpenAI:
        """The SDK client, made at the first call: a missing key is a ``ProviderError``
        then, not when the settings are read."""
        if self._client is None:
            # per read, the whole call's is Deadline's
            timeout = self.cfg.timeout or CEILING
            self._client = sdk_client(
                self.cfg, self.cfg.concurrency, self.cfg.max_reply_bytes, timeout
            )
        return self._client

    def body(self, request: ChatRequest) -> dict[str, Any]:
        """The request's body as the chat completions endpoint takes it (a live call's, and
        a batch job line's)."""
        body: dict[str, Any] = {
            "model": self.cfg.name,
            "messages": request.messages,
            "temperature": request.temperature,
            "max_tokens": request.max_tokens,
        }
        optional = {
            "seed": request.seed,
            "response_format": request.response_format,
            "service_tier": request.service_tier,
        }
        return body | {name: value for name, value in optional.items() if value is not None}

    async def generate(self, request: ChatRequest) -> Reply:
        """One chat completion; every SDK failure becomes a ``ProviderError`` saying whether
        a retry may help."""
        try:
            response = await self.client().chat.completions.create(**self.body(request))
        except (openai.OpenAIError, ValueError) as exc:
            raise flex_busy(provider_error(exc), request) from exc
        served = getattr(response, "service_tier", None)
        tier = served if isinstance(served, str) and served else request.service_tier
        return completion_reply(response, request, tier)

    async def model_report(self) -> str:
        """What the endpoint says of this model beyond its name: its ``/models`` entry less
        the id, kind, owner and permissions (a creation date, a revision, the weights'
        file), as canonical JSON; empty where it says nothing more, lists no models, or
        cannot be asked (the report is a safeguard, never a reason to stop)."""
        try:
            page = await self.client().models.list()
            entries = list(page.data)
        except (openai.OpenAIError, ProviderError, ValueError, TypeError):
            return ""
        for entry in entries:
            if getattr(entry, "id", None) == self.cfg.name:
                shown = entry.model_dump(exclude_unset=True)  # as the endpoint sent it
                said = {k: v for k, v in shown.items() if k not in PLAIN_FIELDS}
                return json.dumps(said, sort_keys=True, default=str) if said else ""
        return ""

    async def aclose(self) -> None:
        """Close the SDK client, if one was made."""
        if self._client is not None:
            await self._client.close()
            self._client = None
