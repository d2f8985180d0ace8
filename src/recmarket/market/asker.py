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
from recmarket.vocabulary import RoleName


@dataclass
class RoleAsker:
    """One episode's role calls: seeded per call, logged into ``calls`` in order."""

    agents: Agents
    seed: int
    domain: str
    episode_key: int
    calls: list[Call]
    draws: int = 0  # the set of role draws (RunConfig.draws): 0 keys calls as ever

    async def __call__(self, role: RoleName, inp: Contract, stream: Stream, *unit: int) -> Any:
        # another set of draws ends the key with -draws, which no unit (>= 0) can be
        key = (self.episode_key, *unit, -self.draws) if self.draws else (self.episode_key, *unit)
        seed = call_seed(self.seed, self.domain, stream, *key)
        call = Call(role, inp)  # holds its place in the log until the answer comes
        self.calls.append(call)
        try:
            call.output = await getattr(self.agents, role)(inp, seed)
        except RoleFailure:  # stays, with what it was asked and no answer
            raise
        except BaseException:  # an interrupted call leaves no entry
            self.calls.remove(call)  # by identity: calls are not compared by value
            raise
        return call.output
