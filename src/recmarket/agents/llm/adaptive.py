"""How many calls an endpoint gets at once: a limit that starts from a measurement and then
follows the endpoint, in the manner of TCP's congestion control and Netflix's
concurrency-limits.

A single-slot local server and a hosted API with hundreds of slots want limits two orders
of magnitude apart, and a fixed limit that suits one makes the other fail: too many calls
queue behind each other at a small server until they pass the timeout, too few leave a
large one idle. So the limit

- starts where ``llm check`` measured it: the most parallel tiny calls (1, 2, 4, ...) that
  finish about as fast as one call alone (``start_from``);
- grows while the endpoint keeps up: doubling per window of completions until the first
  sign of overload (slow start), then by one per window (additive increase), and only
  when the calls in flight actually reached the limit;
- halves on a timeout, a 429, a 5xx or a dropped connection (multiplicative decrease),
  once per window of calls sent before the cut, so a burst of failures from one overload
  is one cut; and shrinks by a fifth when the window's latencies rise (the median call
  took more than ``RISE`` times the latency expected of it without a queue: calls queueing
  at the endpoint, the signal TCP Vegas reads). A call is expected to take the endpoint's
  fixed cost (the latency of one tiny call alone, which the check measured: connection,
  scheduling, the first token) plus its work at the fastest pace seen for its role, where
  work is its completion tokens plus its prompt tokens over ``PREFILL_FACTOR`` (every
  backend reads a prompt several times faster than it writes). So a long answer is not
  taken for a queue, nor a short one: at an endpoint that answers every call in one second,
  pace alone (seconds over work) made the shortest calls of a role look up to 2.3 times
  slower than the longest, and that spread held the limit between 3 and 9 of 64;
- stays between 1 and the configured maximum.

A call that failed is retried only after its slot was given back and a slot under the
new limit taken, so a timeout caused by queueing behind our own calls is not retried at
the concurrency that caused it. Slots go to the most urgent waiter first (then the
longest waiting), as before.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

RISE = 1.6  # median latency over the latency expected without a queue: calls are queueing
PREFILL_FACTOR = 8.0  # prompt tokens that cost as much as one completion token, at least
SHRINK = 0.8  # the limit's factor when latency rises
BACKOFF = 0.5  # the limit's factor on a timeout, 429, 5xx or dropped connection
FORGET = 1.02  # per window, the fastest pace seen drifts up: a slower endpoint is accepted
MIN_WINDOW = 4  # completions judged together
PROBE_LEVELS = (1, 2, 4, 8, 16)  # parallel tiny calls that llm check measures
PROBE_RISE = 1.4  # slowest call of a level over the single call's latency: too many
PROBE_FLOOR = 0.02  # seconds: a single call faster than this is timed as this (noise)

LimitNotice = Callable[[int], None]


def start_from(latencies: Sequence[tuple[int, float]], maximum: int) -> int:
    """The starting limit from ``llm check``'s measurement: the highest level whose slowest
    call took at most PROBE_RISE times the single call, capped at ``maximum``."""
    if not latencies:
        return 1
    alone = max(latencies[0][1], PROBE_FLOOR)
    start = 1
    for level, slowest in latencies:
        if slowest > PROBE_RISE * alone:
            break
        start = level
    return max(1, min(start, maximum))


@dataclass
class Window:
    """The completions judged together, and whether the limit was reached meanwhile."""

    ratios: list[float] = field(default_factory=list)
    saturated: bool = False


class AdaptiveLimit:
    """Calls in flight for one endpoint, shared by every model and role that uses it."""

    def __init__(
        self,
        maximum: int,
        start: int = 1,
        adaptive: bool = True,
        on_change: LimitNotice | None = None,
    ) -> None:
        self.maximum, self.adaptive, self.on_change = maximum, adaptive, on_change
        self.limit = float(min(start, maximum) if adaptive else maximum)
        self.in_flight = 0
        self.slow_start = True
        self.fixed = 0.0  # seconds any call takes, however small (see begin_from)
        self.fastest: dict[str, float] = {}  # seconds per unit of work beyond the fixed cost
        self.window = Window()
        self.sent = itertools.count(1)
        self.cut_before = 0  # calls sent before this one do not cut the limit again
        self.waiting: list[tuple[tuple[int, ...], int, asyncio.Future[None]]] = []
        self.order = itertools.count()

    @property
    def current(self) -> int:
        """The calls allowed in flight now: the limit's whole part, never below one."""
        return max(1, int(self.limit))

    def begin_from(self, latencies: Sequence[tuple[int, float]]) -> None:
        """Start from the check's measurement (``start_from``), with the latency of one
        tiny call alone as every call's fixed cost, before any call; announce the start,
        moved or not."""
        if latencies:
            self.fixed = latencies[0][1]
        if self.adaptive:
            self._set(float(start_from(latencies, self.maximum)))
        if self.on_change is not None:
            self.on_change(self.current)

    # -- slots ---------------------------------------------------------------------------

    async def acquire(self, urgency: tuple[int, ...]) -> int:
        """Take a slot (the lowest ``urgency`` first); the call's ticket for ``release``."""
        if self.in_flight < self.current and not self.waiting:
            self._take()
            return next(self.sent)
        future = asyncio.get_running_loop().create_future()
        heapq.heappush(self.waiting, (urgency, next(self.order), future))
        try:
            await future
        except asyncio.CancelledError:
            if future.done() and not future.cancelled():
                self.in_flight -= 1  # granted just as it was cancelled: pass the slot on
                self._wake()
            raise
        return next(self.sent)

    def _take(self) -> None:
        """One more call in flight; reaching the limit is what lets a window grow it."""
        self.in_flight += 1
        self.window.saturated |= self.in_flight >= self.current

    def _wake(self) -> None:
        while self.waiting and self.in_flight < self.current:
            _, _, future = heapq.heappop(self.waiting)
            if not future.done():
                self._take()
                future.set_result(None)

    # -- what calls teach ------------------------------------------------------------------

    def succeeded(
        self, ticket: int, role: str, seconds: float, prompt_tokens: int, completion_tokens: int
    ) -> None:
        """A call answered after ``seconds``."""
        del ticket
        work = 1 + completion_tokens + prompt_tokens / PREFILL_FACTOR
        pace = max(seconds - self.fixed, 0.0) / work
        self.fastest[role] = max(min(self.fastest.get(role, pace), pace), 1e-9)
        expected = self.fixed + self.fastest[role] * work
        self.window.ratios.append(seconds / expected)
        if len(self.window.ratios) >= max(MIN_WINDOW, self.current):
            self._judge()
        self._release()

    def overloaded(self, ticket: int) -> None:
        """A call timed out, was refused with 429 or 5xx, or lost its connection."""
        if self.adaptive and ticket >= self.cut_before:
            self.cut_before = next(self.sent)
            self.slow_start = False
            self._set(self.limit * BACKOFF)
            self.window = Window()
        self._release()

    def released(self, ticket: int) -> None:
        """A call ended in a way that says nothing about load (refused key, cancelled)."""
        del ticket
        self._release()

    def _release(self) -> None:
        self.in_flight -= 1
        self._wake()

    def _judge(self) -> None:
        window, self.window = self.window, Window()
        self.fastest = {role: t * FORGET for role, t in self.fastest.items()}
        if not self.adaptive:
            return
        if statistics.median(window.ratios) > RISE:
            self.slow_start = False
            self._set(self.limit * SHRINK)
        elif window.saturated:
            self._set(self.limit * 2 if self.slow_start else self.limit + 1)

    def _set(self, limit: float) -> None:
        before = self.current
        self.limit = min(max(limit, 1.0), float(self.maximum))
        if self.current != before and self.on_change is not None:
            self.on_change(self.current)
        self._wake()
