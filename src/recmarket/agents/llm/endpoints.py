"""The endpoints a process calls, each with one adaptive concurrency limit that every backend
of the process shares.

One cell alone cannot keep a fast endpoint busy: under LocalRep its dozen simulated users
are a dozen sequential streams of calls. A reproduce therefore plays its LLM cells together
in one process, each cell with its own backend (its store, its call log, its ledger), and
their calls meet here, at one limit per endpoint, measured once by the first check, as is
each model's structured-output form.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

from recmarket.agents.llm.adaptive import PROBE_LEVELS, AdaptiveLimit, LimitNotice
from recmarket.agents.llm.client import ChatModel
from recmarket.agents.llm.config import ModelConfig
from recmarket.agents.llm.pace import Pace

Latencies = list[tuple[int, float]]  # (parallel calls, the slowest one's seconds)


class Endpoints:
    """Limits by base URL; ``on_limit`` hears every move of any of them."""

    def __init__(self, on_limit: LimitNotice | None = None) -> None:
        self.on_limit = on_limit
        self.limits: dict[str, AdaptiveLimit] = {}
        self._found: dict[object, Any] = {}
        self._locks: dict[object, asyncio.Lock] = {}

    def limit_for(self, cfg: ModelConfig) -> AdaptiveLimit:
        """The endpoint's limit; the first model configured for it sets its maximum."""
        url = cfg.base_url
        if url not in self.limits:
            self.limits[url] = AdaptiveLimit(
                cfg.concurrency, 1, cfg.adaptive_concurrency, self.on_limit
            )
        return self.limits[url]

    async def measure(self, model: ChatModel) -> Latencies:
        """The endpoint's latency at 1, 2, 4, ... parallel calls, measured through
        ``model`` the first time any backend asks (the limit then starts from it), and the
        same figures after: cells that check at once wait for one measurement."""

        async def measure() -> Latencies:
            latencies = await model.measure_parallel(PROBE_LEVELS)
            self.limit_for(model.cfg).begin_from(latencies)
            return latencies

        return await self._once(("latencies", model.cfg.base_url), measure)

    async def pace(self, model: ChatModel, fixed: float, parallel: int) -> Pace | None:
        """The pace of ``model`` at its endpoint (``fixed``: a tiny call's seconds;
        ``parallel``: the calls it serves at once, where its limit starts), measured by the
        first backend that asks, where no ``timeout`` fixes its deadline; every model of
        that name and endpoint sizes its deadlines from it."""
        if model.cfg.timeout is not None:
            return None

        async def measure() -> Pace | None:
            found = await model.measure_pace(fixed)
            return replace(found, parallel=max(1, parallel)) if found is not None else None

        pace = await self._once(("pace", model.cfg.base_url, model.cfg.name), measure)
        model.adopt_pace(pace)
        return pace

    async def reply_format(self, model: ChatModel) -> str:
        """The structured-output form of ``model`` (its setting, or under ``auto`` the first
        form its endpoint honours), probed by the first backend that asks and adopted by
        the others' models of the same name, endpoint and setting."""
        key = ("form", model.cfg.base_url, model.cfg.name, model.cfg.structured)
        form = await self._once(key, model.reply_format)
        model.adopt_format(form)
        return form

    async def _once(self, key: object, find: Callable[[], Awaitable[Any]]) -> Any:
        """What ``find`` found for ``key`` the first time; callers that ask meanwhile wait
        for it rather than finding it again."""
        async with self._locks.setdefault(key, asyncio.Lock()):
            if key not in self._found:
                self._found[key] = await find()
        return self._found[key]
