"""How the protocol calls a role for one episode: each call's seed from its named stream,
and every call logged in the order it was made.

Concurrent calls (an episode's N explanations) finish in any order; the log keeps the
order they were made in, so identical runs store identical call lists whatever an
endpoint's timing. A call whose role failed stays in the log with its input and no answer;
an interrupted one leaves no entry.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from recmarket.agents.contracts import Contract, RoleFailure
from recmarket.agents.roles import Agents
from recmarket.market.outcome import Call
from recmarket.streams import Stream, call_seed


@dataclass
class RoleAsker:
    """One episode's role calls: seeded per call, logged into ``calls`` in order."""

    agents: Agents
    seed: int
    domain: str
    episode_key: int
    calls: list[Call]

    async def __call__(self, role: str, inp: Contract, stream: Stream, *unit: int) -> Any:
        seed = call_seed(self.seed, self.domain, stream, self.episode_key, *unit)
        slot = Call(role, inp, inp, len(self.calls))  # holds its place until the answer comes
        self.calls.append(slot)
        try:
            out = await getattr(self.agents, role)(inp, seed)
        except RoleFailure:
            self.calls[self._place(slot)] = Call(role, inp, None)  # what it was asked
            raise
        except BaseException:
            del self.calls[self._place(slot)]  # an interrupted call leaves no entry
            raise
        self.calls[self._place(slot)] = Call(role, inp, out)
        return out

    def _place(self, slot: Call) -> int:
        """Where the slot is now: where it was put, unless an interrupted call before it
        left the log (then found by a search; the episode is being abandoned anyway)."""
        at = slot.at
        if at < len(self.calls) and self.calls[at] is slot:
            return at
        return next(i for i, c in enumerate(self.calls) if c is slot)
