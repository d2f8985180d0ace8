"""A configured chat model as the roles use it: the call store first, then a provider
wrapped in the budget, the endpoint's concurrency limit and the retries.

``ChatModel.complete`` serves an identical request from the call store (``replay`` forbids
anything else), and otherwise sends it down the chain ``Budgeted -> Retrying -> Limited ->
ChatAPI`` and stores the answer. A JSON role's reply schema goes with the request in the
structured-output form the endpoint honours (``formats``). The provider is any
``ChatAPI``: the OpenAI-compatible one for real endpoints, an in-process fake in unit
tests.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Awaitable, Callable
from functools import partial
from typing import TYPE_CHECKING, Any

from recmarket.agents.llm.adaptive import PROBE_FLOOR, PROBE_RISE, AdaptiveLimit
from recmarket.agents.llm.api import ChatAPI, ChatRequest, Reply, SendLive
from recmarket.agents.llm.cache import CachedCall, CallCache, call_key
from recmarket.agents.llm.config import ModelConfig
from recmarket.agents.llm.formats import (
    AUTO_ORDER,
    FORMATS,
    PROBE_MESSAGES,
    PROBE_SCHEMA,
    PROBE_TOKENS,
    honoured,
)
from recmarket.agents.llm.ledger import Ledger
from recmarket.agents.llm.pace import PACE_MESSAGES, PACE_TOKENS, Pace, reading_messages
from recmarket.agents.llm.wrappers import (
    Budgeted,
    Deadline,
    EndpointFailure,
    Limited,
    Redacted,
    Retrying,
    WaitNotice,
)
from recmarket.tasks import gather_or_cancel

if TYPE_CHECKING:  # batch mode's queue needs the openai SDK: LLM runs in batch mode only
    from recmarket.agents.llm.batches import BatchQueue

__all__ = ["CHECK_MESSAGES", "ChatModel", "EndpointFailure", "ReplayMiss", "WaitNotice"]

# The one cheap call that checks an endpoint's key, URL and model before a run.
CHECK_MESSAGES = (
    {"role": "system", "content": "recmarket endpoint check."},
    {"role": "user", "content": "Reply with OK."},
)


FORM_RETRIES = 3  # retries of a structured-output probe before the form counts as refused
# A probe level above one whose calls were refused (and passed on a retry): too many at once.
REFUSED = math.inf


class ReplayMiss(RuntimeError):
    """--replay found no stored answer for a call; the run stops before any network use."""


class ChatModel:
    """One configured model, shared by every role that uses it."""

    def __init__(
        self,
        cfg: ModelConfig,
        api: ChatAPI,
        cache: CallCache,
        ledger: Ledger,
        limit: AdaptiveLimit,
        replay: bool = False,
        on_wait: WaitNotice | None = None,
    ) -> None:
        self.cfg, self.api, self.cache, self.ledger, self.replay = cfg, api, cache, ledger, replay
        self.limit, self.on_wait = limit, on_wait
        # Every call, checks included; the calls in flight are the endpoint's, all models'.
        self._timed = Deadline(Redacted(api.generate, cfg), cfg, on_wait, lambda: limit.in_flight)
        unpaid = Retrying(Limited(self._timed, limit), cfg, on_wait, lambda: limit.current)
        self._check = unpaid  # the endpoint check is never charged to a run
        self._send = Budgeted(unpaid, cfg, ledger.account)
        self._format: str | None = None  # the structured-output form in use, once known
        self._format_lock = asyncio.Lock()
        # Awaited before the first call that must be sent (the backend's endpoint check):
        # answers the stores hold need no endpoint at all.
        self.before_send: Callable[[], Awaitable[object]] | None = None
        # Batch mode: calls go as batch jobs through this queue (``batches``), not live
        self.batches: BatchQueue | None = None

    @property
    def params(self) -> dict[str, Any]:
        """What, besides the messages and the sample, determines an answer (the call key).
        The structured-output setting is there unless it is off, so stores made before it
        existed still serve the calls they hold."""
        params: dict[str, Any] = {"temperature": self.cfg.temperature}
        params["max_tokens"] = self.cfg.max_tokens
        if self.cfg.structured != "off":
            params["structured"] = self.cfg.structured
        return params

    def _request(
        self,
        role: str,
        messages: list[dict[str, str]],
        sample: int,
        response_format: dict[str, Any] | None,
    ) -> ChatRequest:
        seed = sample % 2**31 if self.cfg.send_seed else None
        return ChatRequest(
            role,
            messages,
            self.cfg.max_tokens,
            self.cfg.temperature,
            seed,
            response_format,
            service_tier=self.cfg.service_tier,
        )

    async def check(self) -> float:
        """One tiny call, retried like any other: seconds it took, or EndpointFailure naming
        the endpoint, the model and what is wrong. Never stored, never charged to a run."""
        start = time.monotonic()
        request = ChatRequest("check", [dict(m) for m in CHECK_MESSAGES], 1, 0.0, None)
        await self._check(request)
        return time.monotonic() - start

    async def _answered(self, request: ChatRequest, round_size: int = 1) -> tuple[Reply, float]:
        """A check's call past the limit (not yet set), retried as any call is (a 429 or a
        5xx from an endpoint that is up is no reason to stop a run), with the seconds its
        answered attempt took."""
        took = 0.0

        async def attempt(sent: ChatRequest) -> Reply:
            nonlocal took
            start = time.monotonic()
            reply = await self._timed(sent)
            took = time.monotonic() - start
            return reply

        reply = await Retrying(attempt, self.cfg, self.on_wait, lambda: round_size)(request)
        return reply, took

    async def measure_parallel(self, levels: tuple[int, ...]) -> list[tuple[int, float]]:
        """For each level, the slowest of that many tiny calls sent at once, in seconds,
        after one call to warm the endpoint; stops after the first level that takes
        PROBE_RISE times one call alone. Each call is timed by its answered attempt; a
        level above one whose calls were refused even once is too many at once
        (``REFUSED``, which ends the probe below it)."""
        system, user = (dict(m) for m in CHECK_MESSAGES)
        top = max(levels, default=1)

        async def timed(call: int, level: int) -> float:
            # Each call its own text, so no endpoint serves it from its prompt cache.
            messages = [system, {**user, "content": f"{user['content']} ({call})"}]
            reply, took = await self._answered(ChatRequest("check", messages, 1, 0.0, None), top)
            return REFUSED if reply.retries and level > 1 else took

        await timed(-1, 1)  # a cold endpoint's first call (loading, warming) is not its latency
        measured: list[tuple[int, float]] = []
        for level in levels:
            if level > self.cfg.concurrency:
                break
            slowest = max(await gather_or_cancel(*(timed(call, level) for call in range(level))))
            measured.append((level, slowest))
            if slowest > PROBE_RISE * max(measured[0][1], PROBE_FLOOR):
                break
        return measured

    async def measure_pace(self, fixed: float) -> Pace | None:
        """The endpoint's pace: one call that writes PACE_TOKENS tokens and one that reads
        about READ_TOKENS, each timed beyond ``fixed`` (a tiny call's seconds); None where
        the written answer is too short to time (the deadline then stays at its start)."""
        messages = [dict(m) for m in PACE_MESSAGES]
        request = ChatRequest("check", messages, PACE_TOKENS, 0.0, None)
        reply, took = await self._answered(request)
        pace = Pace.measured(fixed, took, reply.completion_tokens)
        if pace is None:
            return None
        reading = ChatRequest("check", reading_messages(), 1, 0.0, None)
        read, took = await self._answered(reading)
        return pace.reading(took, read.prompt_tokens - reply.prompt_tokens)

    def adopt_pace(self, pace: Pace | None) -> None:
        """Size this model's deadlines from ``pace`` (its own, or its endpoint's)."""
        self._timed.pace = pace

    async def reply_format(self) -> str:
        """The structured-output form this model's calls use: the setting itself, or under
        ``auto`` the first form the endpoint honours (``formats``), found once."""
        async with self._format_lock:
            if self._format is None and self.cfg.structured != "auto":
                self._format = self.cfg.structured
            if self._format is None:
                self._format = "off"
                for name in AUTO_ORDER:
                    if await self._honours(name):
                        self._format = name
                        break
            return self._format

    def adopt_format(self, name: str) -> None:
        """Use the form another model of the same name, endpoint and setting found."""
        self._format = name

    async def _honours(self, name: str) -> bool:
        """Whether the endpoint constrains a reply in form ``name``. A refusal that a retry
        cannot mend (400, 422) means no; so do FORM_RETRIES failed retries, which a
        transient fault seldom gives but a server that refuses the form with a 500 always
        does (it then costs a few seconds, not a run's worth of backoff)."""
        messages = [dict(m) for m in PROBE_MESSAGES]
        form = FORMATS[name](PROBE_SCHEMA)
        request = ChatRequest("check", messages, PROBE_TOKENS, 0.0, None, form)
        few = self.cfg.model_copy(update={"max_retries": min(FORM_RETRIES, self.cfg.max_retries)})
        try:
            reply = await Retrying(self._timed, few, self.on_wait)(request)
        except EndpointFailure:
            return False
        return honoured(reply.text)

    async def complete(
        self,
        role: str,
        messages: list[dict[str, str]],
        sample: int,
        schema: dict[str, Any] | None = None,
    ) -> str:
        """The answer to ``messages``, from the store or the endpoint; ``schema`` is the
        reply's JSON schema, sent in the structured-output form in use."""
        params = self.params
        if schema is not None and "structured" in params:  # the schema shapes the answer
            params = {**params, "schema": schema}
        key = call_key(self.cfg.name, self.cfg.base_url, messages, params, sample)
        hit = self.cache.get(key)
        if hit is not None:
            self.ledger.add(role, self.cfg, hit, cached=True)
            return hit.response
        if self.replay:
            raise ReplayMiss(
                f"--replay: no stored answer for a {role} call to {self.cfg.name} "
                f"(key {key[:12]}); run without --replay to make it"
            )
        if self.before_send is not None:
            await self.before_send()
        form = FORMATS[await self.reply_format()](schema) if schema is not None else None
        request = self._request(role, messages, sample, form)
        seq = self.cache.issue()  # its place in the run's call order, now it is sent
        start = time.monotonic()
        if self.batches is not None:  # one of the next batch job's calls, at its price
            queue = self.batches
            try:
                reply = await Budgeted(partial(queue.answer, key), self.cfg, self.ledger.account)(
                    request
                )
            except SendLive:  # live mode, and no earlier job holds the call
                reply = await self._send(request)
        else:
            reply = await self._send(request)
        call = CachedCall(
            reply.text,
            reply.prompt_tokens,
            reply.completion_tokens,
            time.monotonic() - start,
            reply.retries,
            reply.cached_tokens,
            reply.estimated,
            reply.tier,
            reply.busy,
        )
        self.cache.put(
            key, role, self.cfg.name, self.cfg.base_url, messages, params, sample, call, seq
        )
        self.ledger.add(role, self.cfg, call, cached=False)
        if self.batches is not None:
            self.batches.stored(key)
        return call.response

    async def aclose(self) -> None:
        """Close the provider's HTTP client, inside the event loop that opened it."""
        await self.api.aclose()
