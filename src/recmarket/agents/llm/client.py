"""A configured chat model as the roles use it: the call store first, then a provider
wrapped in the budget, the endpoint's concurrency limit and the retries.

``ChatModel.complete`` serves an identical request from the call store (``replay`` forbids
anything else), and otherwise sends it down the chain ``Budgeted -> Limited -> Retrying ->
ChatAPI`` and stores the answer. The provider is any ``ChatAPI``: the OpenAI-compatible
one for real endpoints, an in-process fake in unit tests.
"""

from __future__ import annotations

import time
from typing import Any

from recmarket.agents.llm.api import ChatAPI, ChatRequest, Reply
from recmarket.agents.llm.cache import CachedCall, CallCache, call_key
from recmarket.agents.llm.config import ModelConfig
from recmarket.agents.llm.ledger import Ledger
from recmarket.agents.llm.wrappers import (
    Budgeted,
    EndpointFailure,
    Limited,
    PriorityLimit,
    Retrying,
    WaitNotice,
)

__all__ = ["CHECK_MESSAGES", "ChatModel", "EndpointFailure", "ReplayMiss", "WaitNotice"]

# The one cheap call that checks an endpoint's key, URL and model before a run.
CHECK_MESSAGES = (
    {"role": "system", "content": "recmarket endpoint check."},
    {"role": "user", "content": "Reply with OK."},
)


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
        limit: PriorityLimit,
        replay: bool = False,
        on_wait: WaitNotice | None = None,
    ) -> None:
        self.cfg, self.api, self.cache, self.ledger, self.replay = cfg, api, cache, ledger, replay
        unpaid = Limited(Retrying(api.generate, cfg, on_wait), limit)
        self._check = unpaid  # the endpoint check is never charged to a run
        self._send = Budgeted(unpaid, cfg, ledger.account)

    @property
    def params(self) -> dict[str, Any]:
        return {"temperature": self.cfg.temperature, "max_tokens": self.cfg.max_tokens}

    def _request(self, role: str, messages: list[dict[str, str]], sample: int) -> ChatRequest:
        seed = sample % 2**31 if self.cfg.send_seed else None
        return ChatRequest(role, messages, self.cfg.max_tokens, self.cfg.temperature, seed)

    async def check(self) -> float:
        """One tiny call, retried like any other: seconds it took, or EndpointFailure naming
        the endpoint, the model and what is wrong. Never stored, never charged to a run."""
        start = time.monotonic()
        request = ChatRequest("check", [dict(m) for m in CHECK_MESSAGES], 1, 0.0, None)
        await self._check(request)
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
        start = time.monotonic()
        reply: Reply = await self._send(self._request(role, messages, sample))
        call = CachedCall(
            reply.text,
            reply.prompt_tokens,
            reply.completion_tokens,
            time.monotonic() - start,
            reply.retries,
            reply.cached_tokens,
        )
        self.cache.put(
            key, role, self.cfg.name, self.cfg.base_url, messages, self.params, sample, call
        )
        self.ledger.add(role, self.cfg, call, cached=False)
        return call.response

    async def aclose(self) -> None:
        await self.api.aclose()
