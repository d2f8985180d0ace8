"""The one interface a chat provider implements, in the shape of inspect_ai's ``ModelAPI``.

A provider sends one request and returns one reply, or raises ``ProviderError`` saying what
went wrong and whether trying again may help. Everything else a call needs (the call
store and replay, retries, the concurrency limit, the budget, the ledger) wraps a provider
in ``recmarket.agents.llm.wrappers`` and ``client``, so each can be tested alone and a
new provider is one small class.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol

from recmarket.agents.llm.credentials import redact


@dataclass(frozen=True)
class ChatRequest:
    """What determines an answer: the rendered messages and the sampling parameters."""

    role: str  # which role asks (for priorities and the ledger; not sent)
    messages: list[dict[str, str]] = field(hash=False)
    max_tokens: int
    temperature: float
    seed: int | None  # the call's sample index, where the endpoint accepts a seed
    # The reply's JSON schema in the endpoint's structured-output form (``formats``).
    response_format: dict[str, Any] | None = field(default=None, hash=False)
    attempt: int = 0  # 0 for a call's first attempt, n for its n-th retry (not sent)
    service_tier: str | None = None  # the provider tier asked for (None: none is sent)

    @property
    def characters(self) -> int:
        """Characters sent in all the messages: the ceiling of a prompt's token count."""
        return sum(len(m["content"]) for m in self.messages)


@dataclass(frozen=True)
class Reply:
    """The answer's text and its token counts, bounded by what the request allows."""

    text: str
    prompt_tokens: int
    completion_tokens: int
    retries: int = 0  # attempts that failed before this one (set by the retry wrapper)
    cached_tokens: int = 0  # prompt tokens the provider served from its prompt cache
    estimated: bool = False  # the endpoint gave no usable token counts (``trusted_tokens``)
    # The tier that served and bills the call: the one the endpoint names, else the one
    # asked for; "batch" for a batch job's; None: the standard tier
    tier: str | None = None
    busy: int = 0  # flex answers "busy" (429, 498) met before this one (``flex``)


class ProviderError(Exception):
    """One failed attempt: the cause in words a user can act on, whether a retry may help,
    and how long the endpoint asked to wait (Retry-After), if it did."""

    def __init__(
        self,
        cause: str,
        *,
        retryable: bool,
        retry_after: float | None = None,
        rate_limited: bool = False,
        overload: bool | None = None,
    ) -> None:
        cause = redact(cause)  # a library's message may quote a URL with its credentials
        super().__init__(cause)
        self.cause = cause
        self.retryable = retryable
        self.retry_after = retry_after
        self.rate_limited = rate_limited  # a 429: the endpoint working, asking to slow down
        # A timeout, 429, 5xx or dropped connection: too many calls at once, perhaps (a
        # 429 unless said otherwise: a flex tier at capacity is not our calls' fault).
        self.overload = rate_limited if overload is None else overload


class SendLive(Exception):
    """A call that the earlier batch jobs a live run reads (``batches.BatchQueue`` with
    ``reads_only``) do not answer: it is sent live."""


class ChatAPI(Protocol):
    """A chat provider: one request, one reply (or a ProviderError)."""

    async def generate(self, request: ChatRequest) -> Reply:
        """One attempt at the request: the reply, or ``ProviderError`` saying whether a
        retry may help."""
        ...

    async def aclose(self) -> None:
        """Release the provider's connections (inside the event loop that used them)."""
        ...


Generate = Callable[[ChatRequest], Awaitable[Reply]]


# Characters per token where a reply reports no usable count: OpenAI's rule of thumb for
# English text ("one token is about four characters"), which the prompts and answers are.
CHARS_PER_TOKEN = 4


class Tokens(NamedTuple):
    prompt: int
    completion: int
    estimated: bool  # a count was missing or not a count, and was estimated from characters


def trusted_tokens(request: ChatRequest, prompt: object, completion: object, text: str) -> Tokens:
    """Reported token counts, never more than the request allows: a completion is at most
    max_tokens, a prompt at most one token per character sent (the ledger and the budget
    must not trust a claimed 10^12). A count that is missing, negative or not a whole
    number is estimated from the characters sent (the prompt) or received (``text``):
    charging it nothing would let a silent endpoint spend past the budget."""

    def count(value: object, characters: int, ceiling: int) -> tuple[int, bool]:
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            return min(value, ceiling), False
        return min(math.ceil(characters / CHARS_PER_TOKEN), ceiling), True

    prompt_tokens, prompt_guessed = count(prompt, request.characters, request.characters)
    completion_tokens, completion_guessed = count(completion, len(text), request.max_tokens)
    return Tokens(prompt_tokens, completion_tokens, prompt_guessed or completion_guessed)
