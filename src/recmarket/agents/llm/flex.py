"""Waiting out a flex tier: cheap calls that may be refused while the provider is busy.

OpenAI's ``service_tier = "flex"`` (and Gemini's, and Groq's) sells ordinary synchronous
calls at about the batch price, and answers 429 (Groq: 498) when it has no capacity. That
answer says nothing about our endpoint or our key, so it neither spends a call's retries
nor counts towards the failures in a row that stop a run, nor cuts the concurrency limit
(``openai_api.flex_busy``). A call keeps trying, with backoff, for the model's
``flex_wait`` seconds; then it goes to the default tier where ``flex_fallback`` allows it,
and otherwise stops the run in one line, resumable like any endpoint failure.
"""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import replace

from recmarket.agents.llm.api import ChatRequest, ProviderError
from recmarket.agents.llm.config import STANDARD, ModelConfig

BACKOFF_BASE, BACKOFF_CAP = 0.5, 60.0  # seconds: a busy tier clears in minutes, not ms


class FlexBusy(RuntimeError):
    """The flex tier stayed busy for ``flex_wait`` seconds and no fallback is allowed."""


class FlexWait:
    """One call's wait on a busy flex tier: its busy answers, and when the first came."""

    def __init__(self, cfg: ModelConfig) -> None:
        self.cfg = cfg
        self.busy = 0
        self.since: float | None = None

    async def after(self, request: ChatRequest, error: ProviderError) -> ChatRequest:
        """The request to send next, after waiting: the same one, or on the default tier
        once ``flex_wait`` has passed (where ``flex_fallback`` allows; else ``FlexBusy``)."""
        now = time.monotonic()
        self.since = now if self.since is None else self.since
        self.busy += 1
        waited = now - self.since
        if waited >= self.cfg.flex_wait:
            if not self.cfg.flex_fallback:
                raise FlexBusy(
                    f"{error.cause}, still after {waited:.0f} s (flex_wait); set "
                    "flex_fallback = true to send such calls on the default tier, or rerun "
                    "later: finished episodes are kept"
                )
            return replace(request, service_tier=STANDARD)
        delay = error.retry_after
        if delay is None:
            delay = random.uniform(0, min(BACKOFF_CAP, BACKOFF_BASE * 2 ** min(self.busy, 16)))
        await asyncio.sleep(min(delay, self.cfg.retry_after_cap, self.cfg.flex_wait - waited))
        return request
