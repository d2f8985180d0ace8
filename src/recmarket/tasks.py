"""Concurrent tasks that never outlive the call that started them.

``asyncio.gather`` raises the first failure at once and leaves the other awaitables
running: after an endpoint failure or a spent budget, calls of the same episode batch went
on in orphaned tasks, landed after the run had closed its stores and reported its spend, and
failed there. Every fan-out of the market and the runner goes through ``gather_or_cancel``
instead.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Iterable
from typing import Any, Protocol, TypeVar


async def gather_or_cancel(*coroutines: Awaitable[Any]) -> list[Any]:
    """Await the coroutines as concurrent tasks; when one fails, cancel the others, let them
    finish their cleanup, and raise its exception as it is (not as an ExceptionGroup)."""
    tasks = [asyncio.ensure_future(c) for c in coroutines]
    try:
        return await asyncio.gather(*tasks)
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise


T = TypeVar("T")


class FanOut(Protocol):
    """How a round awaits several role calls of one stage: all of them (the first failure
    raised), or every one settled (each result or the exception it raised)."""

    async def all(self, coroutines: Iterable[Awaitable[T]]) -> list[T]:
        """Every result, in order; the first failure is raised (and the rest cancelled)."""
        ...

    async def settled(self, coroutines: Iterable[Awaitable[T]]) -> list[T | BaseException]:
        """Every result or the exception it raised, in order."""
        ...


class Together:
    """As concurrent tasks: what calls that wait (a model's) need."""

    async def all(self, coroutines: Iterable[Awaitable[T]]) -> list[T]:
        return await gather_or_cancel(*coroutines)

    async def settled(self, coroutines: Iterable[Awaitable[T]]) -> list[T | BaseException]:
        return await asyncio.gather(*coroutines, return_exceptions=True)


class InTurn:
    """One after another, each started when the one before has finished: for backends that
    answer without waiting (the offline rules), whose calls would run one after another as
    tasks too, in the same order; tasks only cost time (a gather of six such calls took
    25 us, an episode's explanations). The coroutines are made as they are awaited, so a
    failure leaves none unawaited."""

    async def all(self, coroutines: Iterable[Awaitable[T]]) -> list[T]:
        return [await c for c in coroutines]

    async def settled(self, coroutines: Iterable[Awaitable[T]]) -> list[T | BaseException]:
        results: list[T | BaseException] = []
        for c in coroutines:
            try:
                results.append(await c)
            except Exception as failure:  # as asyncio.gather(return_exceptions=True) keeps it
                results.append(failure)
        return results
