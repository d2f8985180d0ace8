"""An LLM answering one role: render the prompt card, call, parse, and re-ask with the
specific complaint when the answer breaks the contract."""

from __future__ import annotations

from dataclasses import dataclass

from recmarket.agents.contracts import Contract, RoleFailure
from recmarket.agents.llm.client import ChatModel
from recmarket.agents.llm.parse import OutputError, parse
from recmarket.agents.llm.prompts import render

REASK = "Your answer could not be used: {error}. Answer again, following the output format exactly."
EXCERPT_CHARS = 400  # of a bad answer quoted back in a re-ask: enough to see the fault


def excerpt(text: str) -> str:
    """A bad answer as a re-ask quotes it: whole if short, else its start, marked cut."""
    return text if len(text) <= EXCERPT_CHARS else text[:EXCERPT_CHARS] + " [...]"


@dataclass(frozen=True)
class LLMRole:
    role: str
    model: ChatModel
    repair_attempts: int = 2

    async def __call__(self, inp: Contract, seed: int) -> Contract:
        messages = render(self.role, inp)
        problem = ""
        for _ in range(self.repair_attempts + 1):
            # An EndpointFailure is not caught: it stops the run rather than this episode.
            text = await self.model.complete(self.role, messages, sample=seed)
            try:
                return parse(self.role, text, inp)
            except OutputError as exc:
                problem = str(exc)
                messages = [
                    *messages,
                    {"role": "assistant", "content": excerpt(text)},
                    {"role": "user", "content": REASK.format(error=problem)},
                ]
        raise RoleFailure(self.role, f"invalid after {self.repair_attempts} re-asks: {problem}")
