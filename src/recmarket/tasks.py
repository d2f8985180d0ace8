"""Concurrent tasks that never outlive the call that started them.

``asyncio.gather`` raises the first failure at once and leaves the other awaitables
running: after an endpoint failure or a spent budget, calls of the same episode batch went
on in orphaned tasks, landed after the run had closed its stores and reported its spend, and
failed there. Every fan-out of the market and the runner goes through ``gather_or_cancel``
instead.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any


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
