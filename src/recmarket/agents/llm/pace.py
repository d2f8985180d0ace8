"""How long one attempt of a call may take: a deadline sized to the endpoint's measured pace
and the call's size, unless the model's ``timeout`` fixes it.

A fixed deadline cannot suit both ends of the field: sized for a hosted API (tens of
tokens a second, a minute at most), it stops a small local model on a loaded laptop in the
middle of a long explanation; sized for that model, it lets a hung hosted API hold every
call for minutes. So the endpoint check times one call that writes PACE_TOKENS tokens and
one that reads a prompt of about READ_TOKENS; their times beyond the tiny check call's are
the endpoint's pace. A call then gets MARGIN times what it should take at that pace (its
fixed cost, its prompt read, its ``max_tokens`` written), times the rounds of our own calls
in flight beyond what the endpoint serves at once (the clock runs from sending, so calls
queued ahead at a one-slot server are time it needs), within FLOOR and CEILING.

Reading is measured too, by a call with a prompt of about READ_TOKENS tokens and one token
out: on a CPU a small model may write a hundred tokens a second and read a long prompt
barely faster, so a deadline that assumed a fixed ratio gave a 1,000-token prompt a tenth
of the time it takes. The reading prompt starts with a fresh nonce, so no prompt cache
(llama.cpp keeps the last prompt's) serves it from an earlier check.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, replace

from recmarket.agents.llm.adaptive import PREFILL_FACTOR
from recmarket.agents.llm.api import CHARS_PER_TOKEN, ChatRequest
from recmarket.agents.llm.config import FLEX, ModelConfig

FLOOR = 30.0  # seconds: however fast the endpoint, a call may take this long
CEILING = 900.0  # seconds: however slow, no call waits longer
MARGIN = 3.0  # over the expected time: a machine busier than at the check, a slower answer
BEFORE_MEASURED = 60.0  # seconds for the check's own tiny calls, before the pace is known
FASTEST = 2000.0  # tokens a second: a faster measurement is noise (the call took ~0 s)
FASTEST_READ = 100_000.0  # tokens a second read: likewise
READ_TOKENS = 1000  # about: the prompt of the reading check (prompt cards run 600-1,500)
PACE_TOKENS = 48  # tokens the timed call asks for
MIN_PACE_TOKENS = 8  # a shorter answer is too short to time: no pace is measured
PACE_MESSAGES = (
    {"role": "system", "content": "recmarket speed check."},
    {"role": "user", "content": "Count from 1 to 100, one number after another."},
)
READ_MESSAGES = (
    {"role": "system", "content": "recmarket reading check."},
    {"role": "user", "content": "Reply with OK. {nonce} " + "a b c d " * (READ_TOKENS // 4)},
)
CHANGE_IT = "set timeout (seconds) for the model in a --config file to fix it"


def reading_messages() -> list[dict[str, str]]:
    """The reading check's prompt, a fresh nonce first (infrastructure, not a draw of the
    simulation: it decides no record)."""
    system, user = (dict(m) for m in READ_MESSAGES)
    user["content"] = user["content"].replace("{nonce}", secrets.token_hex(8))
    return [system, user]


@dataclass(frozen=True)
class Pace:
    """What the check measured: a tiny call's seconds, tokens written per second, prompt
    tokens read per second (None: not measured; then PREFILL_FACTOR times the writing
    pace, the ratio the adaptive limit assumes), and how many calls it serves at once."""

    fixed: float
    tokens_per_second: float
    read_per_second: float | None = None
    parallel: int = 1  # calls the endpoint serves at once without slowing (the probe's start)

    @classmethod
    def measured(cls, fixed: float, seconds: float, tokens: int) -> Pace | None:
        """From the timed call's ``seconds`` and the ``tokens`` it wrote; None when it
        wrote too few to time."""
        if tokens < MIN_PACE_TOKENS:
            return None
        writing = max(seconds - fixed, tokens / FASTEST)
        return cls(fixed, tokens / writing)

    def reading(self, seconds: float, tokens: int) -> Pace:
        """This pace with the reading check's: ``tokens`` of prompt read in ``seconds``."""
        read = max(seconds - self.fixed, tokens / FASTEST_READ)
        return replace(self, read_per_second=tokens / read if tokens > 0 else None)

    def read_note(self) -> str:
        """The prompt reading speed for the pace line, where it was measured."""
        if self.read_per_second is None:
            return ""
        return f" and {self.read_per_second:.0f} read"

    def expected(self, request: ChatRequest) -> float:
        """Seconds the call should take at this pace, alone at the endpoint."""
        prompt = request.characters / CHARS_PER_TOKEN
        read = self.read_per_second or PREFILL_FACTOR * self.tokens_per_second
        return self.fixed + prompt / read + request.max_tokens / self.tokens_per_second


def deadline(
    cfg: ModelConfig, pace: Pace | None, request: ChatRequest, in_flight: int = 1
) -> tuple[float, str]:
    """The seconds ``request`` may take, sent while ``in_flight`` calls of ours (itself
    included) are at the endpoint, and how they were set (for the stop line). Calls beyond
    what the endpoint serves at once (``pace.parallel``) queue there: the clock runs from
    sending, so each round of them ahead is time the call needs."""
    if cfg.timeout is not None:
        return cfg.timeout, "the model's timeout setting"
    if request.service_tier == FLEX:  # queued behind the provider's own traffic
        return CEILING, f"a flex call may queue for minutes at the provider; {CHANGE_IT}"
    if pace is None:
        return BEFORE_MEASURED, f"the endpoint's pace is not measured; {CHANGE_IT}"
    rounds = max(1.0, in_flight / pace.parallel)
    seconds = min(CEILING, max(FLOOR, MARGIN * rounds * pace.expected(request)))
    how = (
        f"sized from the endpoint's measured {pace.tokens_per_second:.1f} tokens/s written"
        f"{pace.read_note()} for {request.max_tokens} completion tokens and {in_flight} "
        f"call(s) in flight; {CHANGE_IT}"
    )
    return seconds, how
