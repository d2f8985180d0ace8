"""How long one attempt of a call may take: a deadline sized to the endpoint's measured pace
and the call's size, unless the model's ``timeout`` fixes it.

A fixed deadline cannot suit both ends of the field: sized for a hosted API (tens of
tokens a second, a minute at most), it stops a small local model on a loaded laptop in the
middle of a long explanation; sized for that model, it lets a hung hosted API hold every
call for minutes. So the endpoint check times one call that writes PACE_TOKENS tokens; its
time beyond the tiny check call's is the endpoint's pace. A call then gets MARGIN times what
it should take at that pace (its fixed cost, its prompt read at PREFILL_FACTOR times the
writing pace, its ``max_tokens`` written), within FLOOR and CEILING: room for the calls
queued ahead of it at a server with one slot, and for a machine busier than at the check.
"""

from __future__ import annotations

from dataclasses import dataclass

from recmarket.agents.llm.adaptive import PREFILL_FACTOR
from recmarket.agents.llm.api import CHARS_PER_TOKEN, ChatRequest
from recmarket.agents.llm.config import ModelConfig

FLOOR = 30.0  # seconds: however fast the endpoint, a call may take this long
CEILING = 900.0  # seconds: however slow, no call waits longer
MARGIN = 3.0  # over the expected time: a queue of two ahead, or a machine busier than at the check
BEFORE_MEASURED = 60.0  # seconds for the check's own tiny calls, before the pace is known
FASTEST = 2000.0  # tokens a second: a faster measurement is noise (the call took ~0 s)
PACE_TOKENS = 48  # tokens the timed call asks for
MIN_PACE_TOKENS = 8  # a shorter answer is too short to time: no pace is measured
PACE_MESSAGES = (
    {"role": "system", "content": "recmarket speed check."},
    {"role": "user", "content": "Count from 1 to 100, one number after another."},
)
CHANGE_IT = "set timeout (seconds) for the model in a --config file to fix it"


@dataclass(frozen=True)
class Pace:
    """What the check measured: a tiny call's seconds, and tokens written per second."""

    fixed: float
    tokens_per_second: float

    @classmethod
    def measured(cls, fixed: float, seconds: float, tokens: int) -> Pace | None:
        """From the timed call's ``seconds`` and the ``tokens`` it wrote; None when it
        wrote too few to time."""
        if tokens < MIN_PACE_TOKENS:
            return None
        writing = max(seconds - fixed, tokens / FASTEST)
        return cls(fixed, tokens / writing)

    def expected(self, request: ChatRequest) -> float:
        """Seconds the call should take at this pace, alone at the endpoint."""
        prompt = request.characters / CHARS_PER_TOKEN
        work = request.max_tokens + prompt / PREFILL_FACTOR
        return self.fixed + work / self.tokens_per_second


def deadline(cfg: ModelConfig, pace: Pace | None, request: ChatRequest) -> tuple[float, str]:
    """The seconds ``request`` may take, and how they were set (for the stop line)."""
    if cfg.timeout is not None:
        return cfg.timeout, "the model's timeout setting"
    if pace is None:
        return BEFORE_MEASURED, f"the endpoint's pace is not measured; {CHANGE_IT}"
    seconds = min(CEILING, max(FLOOR, MARGIN * pace.expected(request)))
    how = (
        f"sized from the endpoint's measured {pace.tokens_per_second:.1f} tokens/s for "
        f"{request.max_tokens} completion tokens; {CHANGE_IT}"
    )
    return seconds, how
