"""What every provider call needs, as layers around a ``ChatAPI`` (inspect_ai's ``Model``
around its ``ModelAPI``): the budget, the concurrency limit, the retries. Each layer takes
the next one's ``generate`` and is tested on its own against a scripted provider.

From the outside in: ``Budgeted`` reserves a call's worst-case cost before it waits for a
slot; ``Retrying`` retries what may pass (capped Retry-After, backoff with full jitter) and
turns the rest, and runs of failed retries, into ``EndpointFailure``; ``Limited`` holds one
of the endpoint's slots for each attempt, retries first, then stage 3-4 calls (and among
them those of the longest remaining stream), and tells the adaptive limit (``adaptive``)
how the attempt went; ``Deadline`` gives each attempt its deadline (``pace``) from
connecting to the last byte; ``Redacted``, innermost, takes the API key's value out of
every error and reply before anything else sees them. Retrying outside the limit means a
retry waits for a slot under the limit its own failure may have cut, rather than keeping
its slot; it goes to the head of that queue, so first attempts cannot keep taking the slot
while it sleeps.
"""

from __future__ import annotations

import asyncio
import contextvars
import os
import random
import time
from collections.abc import Callable
from dataclasses import replace

from recmarket.agents.llm.adaptive import AdaptiveLimit
from recmarket.agents.llm.api import ChatRequest, Generate, ProviderError, Reply
from recmarket.agents.llm.config import FLEX, ModelConfig
from recmarket.agents.llm.flex import FlexBusy, FlexWait
from recmarket.agents.llm.ledger import BudgetExceeded, SpendAccount, worst_case
from recmarket.agents.llm.pace import Pace, deadline
from recmarket.agents.llm.prices import price

BACKOFF_BASE, BACKOFF_CAP = 0.5, 30.0
VISIBLE_WAIT = 10.0  # seconds: longer waits are announced on the progress line

# Told about every wait long enough to notice ("" once it is over).
WaitNotice = Callable[[str], None]


class EndpointFailure(RuntimeError):
    """Infrastructure, not a result: the endpoint refused the key, the model or the request,
    could not be reached, or kept failing after every retry. The run stops with this one
    line and commits nothing for unfinished episodes; the same command resumes once the
    cause is fixed. Only a model that answered and stayed invalid is an episode failure."""

    @classmethod
    def at(cls, cfg: ModelConfig, cause: str) -> EndpointFailure:
        """The failure of a model's endpoint, naming the URL and the model."""
        return cls(f"endpoint {cfg.base_url}, model {cfg.name}: {cause}")


class Retrying:
    """Retries what may pass; stops the run on what will not, on a call whose retries are
    spent, and on too many failed retries in a row across all calls (429s aside): a dead
    endpoint then costs two rounds of timeouts, not every call's retries. Only retries
    count: a failed first attempt says little on its own (a flaky proxy fails every first
    attempt and passes every retry, and a run through it must finish), while a call that
    failed again after its pause is what a dead endpoint does to every call."""

    def __init__(
        self,
        inner: Generate,
        cfg: ModelConfig,
        on_wait: WaitNotice | None,
        in_flight: Callable[[], int] | None = None,
    ) -> None:
        self.inner, self.cfg, self.on_wait = inner, cfg, on_wait
        # The calls the endpoint's limit allows now: a limit that shrank under a failing
        # endpoint makes each round of failures smaller, so the stop comes no later.
        self.in_flight = in_flight or (lambda: cfg.concurrency)
        self.failures_in_a_row = 0

    async def __call__(self, request: ChatRequest) -> Reply:
        sent = failed = 0  # attempts sent; failed ones that spend the call's retries
        flex = FlexWait(self.cfg) if request.service_tier == FLEX else None
        while True:
            try:
                reply = await self.inner(replace(request, attempt=sent))
            except ProviderError as error:
                sent += 1
                if flex is not None and error.rate_limited and request.service_tier == FLEX:
                    try:  # a busy flex tier: waited out, not a failure (``flex``)
                        request = await flex.after(request, error)
                    except FlexBusy as busy:
                        raise EndpointFailure.at(self.cfg, str(busy)) from error
                    continue
                await self._after(error, failed)
                failed += 1
                continue
            self.failures_in_a_row = 0
            tier = reply.tier or request.service_tier
            return replace(reply, retries=sent, tier=tier, busy=flex.busy if flex else 0)

    async def _after(self, error: ProviderError, attempt: int) -> None:
        if attempt > 0 and not error.rate_limited:  # a 429 is the endpoint working
            self.failures_in_a_row += 1
        if not error.retryable:
            raise EndpointFailure.at(self.cfg, error.cause) from error
        if attempt == self.cfg.max_retries:
            raise EndpointFailure.at(
                self.cfg, f"{error.cause}, still after {attempt} retries"
            ) from error
        limit = self.cfg.failure_limit(self.in_flight())
        if self.failures_in_a_row > limit:
            raise EndpointFailure.at(
                self.cfg,
                f"{error.cause}; {self.failures_in_a_row} failed retries in a row "
                f"(max_failures_in_a_row is {limit})",
            ) from error
        delay = error.retry_after
        if delay is None:
            delay = random.uniform(0, min(BACKOFF_CAP, BACKOFF_BASE * 2**attempt))
        delay = min(delay, self.cfg.retry_after_cap)
        notice = self.on_wait if delay > VISIBLE_WAIT else None
        if notice is not None:
            notice(f"{self.cfg.name}: waiting {delay:.0f} s after {error.cause}")
        await asyncio.sleep(delay)
        if notice is not None:
            notice("")


# Stage 3-4 calls (each user's chain of shortlist, decision, review, update) wait for
# nothing but a slot; stage 1-2 calls are prepared ahead and can wait behind them.
URGENT_ROLES = frozenset({"shortlist", "decide", "review", "update"})

# Episodes left in the stream (a simulated user's, under LocalRep) whose calls the current
# task makes, counting the one in play; set by the runner for each episode it finishes. The
# longest stream decides when the last cell finishes, so its calls take a slot first.
STREAM_LEFT: contextvars.ContextVar[int] = contextvars.ContextVar("stream_left", default=0)


class Limited:
    """One slot of the endpoint's adaptive limit per attempt: retries first (a call that
    already waited out a failure is not sent behind calls that have not tried yet), then
    urgent roles, then the longest remaining stream's; tells the limit how each attempt
    went (its latency, or an overload)."""

    def __init__(self, inner: Generate, limit: AdaptiveLimit) -> None:
        self.inner, self.limit = inner, limit

    async def __call__(self, request: ChatRequest) -> Reply:
        urgency = (
            0 if request.attempt else 1,
            0 if request.role in URGENT_ROLES else 1,
            -STREAM_LEFT.get(),
        )
        ticket = await self.limit.acquire(urgency)
        start = time.monotonic()
        try:
            reply = await self.inner(request)
        except ProviderError as error:
            (self.limit.overloaded if error.overload else self.limit.released)(ticket)
            raise
        except BaseException:
            self.limit.released(ticket)
            raise
        seconds = time.monotonic() - start
        self.limit.succeeded(
            ticket, request.role, seconds, reply.prompt_tokens, reply.completion_tokens
        )
        return reply


class Deadline:
    """Each attempt whole within its deadline (``pace.deadline``: the model's ``timeout``,
    or sized to the endpoint's measured pace, the call, and our calls in flight with it):
    connecting, sending, the first byte and every byte after. The HTTP client's timeout
    bounds each read alone, so an endpoint that sends a byte a second kept a call (and the
    endpoint check) alive for minutes unseen.
    An attempt still waiting after VISIBLE_WAIT seconds shows on the progress line, as a
    Retry-After wait does, until no attempt of the model waits that long."""

    def __init__(
        self,
        inner: Generate,
        cfg: ModelConfig,
        on_wait: WaitNotice | None,
        in_flight: Callable[[], int] = lambda: 1,
    ) -> None:
        self.inner, self.cfg, self.on_wait = inner, cfg, on_wait
        self.in_flight = in_flight  # our calls at the endpoint now, this one included
        self.pace: Pace | None = None  # the endpoint's, once the check measured it
        self.waiting_long = 0  # attempts past VISIBLE_WAIT now

    async def __call__(self, request: ChatRequest) -> Reply:
        loop = asyncio.get_running_loop()
        seconds, how = deadline(self.cfg, self.pace, request, max(1, self.in_flight()))
        shown = False

        def show() -> None:
            nonlocal shown
            shown = True
            self.waiting_long += 1
            if self.on_wait is not None and self.waiting_long == 1:
                self.on_wait(f"{self.cfg.name}: waiting for an answer, up to {seconds:.3g} s")

        later = loop.call_later(VISIBLE_WAIT, show) if seconds > VISIBLE_WAIT else None
        try:
            async with asyncio.timeout(seconds):
                return await self.inner(request)
        except TimeoutError:
            raise ProviderError(
                f"no whole answer within the deadline of {seconds:g} s ({how})",
                retryable=True,
                overload=True,
            ) from None
        finally:
            if later is not None:
                later.cancel()
            if shown:
                self.waiting_long -= 1
                if self.on_wait is not None and self.waiting_long == 0:
                    self.on_wait("")


class Budgeted:
    """Reserves a call's worst-case cost in the spend account before it is sent and settles
    it with the call's price after. When the budget cannot cover a call, the calls already
    in flight are let finish (they are paid for and will be stored) before BudgetExceeded
    stops the run. A call cut off in flight is charged its reservation (it may have been
    billed); a call the endpoint refused, nothing."""

    def __init__(self, inner: Generate, cfg: ModelConfig, account: SpendAccount) -> None:
        self.inner, self.cfg, self.account = inner, cfg, account

    async def __call__(self, request: ChatRequest) -> Reply:
        reserved = worst_case(self.cfg, request.messages, request.max_tokens)
        try:
            self.account.reserve(reserved)
        except BudgetExceeded:
            while self.account.in_flight:
                await asyncio.sleep(0.05)
            raise self.account.exceeded(reserved) from None  # the spend they landed with
        self.account.in_flight += 1
        cost = reserved
        try:
            reply = await self.inner(request)
            cost = price(
                self.cfg,
                reply.prompt_tokens,
                reply.completion_tokens,
                reply.cached_tokens,
                tier=reply.tier,
            )
            return reply
        except EndpointFailure:
            cost = 0.0
            raise
        finally:
            self.account.in_flight -= 1
            self.account.settle(reserved, cost)


# Shorter values are no secret (``llm serve``'s "local") and would be struck from answers
# where they are ordinary words.
MIN_SECRET_CHARS = 8
REDACTED = "[redacted API key]"


def redact(text: str, secret: str) -> str:
    """``text`` with every occurrence of ``secret`` replaced (if it is long enough to be
    one)."""
    return text.replace(secret, REDACTED) if len(secret) >= MIN_SECRET_CHARS else text


class Redacted:
    """The API key's value never leaves the provider call: an endpoint that echoes the key
    (in an error body, or in an answer) would otherwise put it on stderr, in the stop line,
    and in every store the answer is kept in. The key is read as the provider reads it,
    from the model's environment variable, at each call."""

    def __init__(self, inner: Generate, cfg: ModelConfig) -> None:
        self.inner, self.cfg = inner, cfg

    async def __call__(self, request: ChatRequest) -> Reply:
        secret = os.environ.get(self.cfg.api_key_env, "")
        try:
            reply = await self.inner(request)
        except ProviderError as error:
            if len(secret) < MIN_SECRET_CHARS or secret not in error.cause:
                raise
            raise ProviderError(
                redact(error.cause, secret),
                retryable=error.retryable,
                retry_after=error.retry_after,
                rate_limited=error.rate_limited,
                overload=error.overload,
            ) from None  # the provider's own exception holds the key too
        if len(secret) >= MIN_SECRET_CHARS and secret in reply.text:
            return replace(reply, text=redact(reply.text, secret))
        return reply
