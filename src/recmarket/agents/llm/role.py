"""An LLM answering one role: render the prompt card, call with the reply's schema, parse,
and re-ask with the specific complaint when the answer breaks the contract. Every attempt
(the reply, its complaint, the re-ask) goes to the attempt log."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Generic, cast

from recmarket.agents.contracts import In, Out, RoleFailure
from recmarket.agents.llm.attempts import Attempt, AttemptLog, input_digest
from recmarket.agents.llm.cards import parse, render, reply_schema
from recmarket.agents.llm.client import ChatModel
from recmarket.agents.llm.parse import OutputError
from recmarket.vocabulary import RoleName

REASK = "Your answer could not be used: {error}. Answer again, following the output format exactly."
EXCERPT_CHARS = 400  # of a bad answer quoted back in a re-ask: enough to see the fault


def excerpt(text: str) -> str:
    """A bad answer as a re-ask quotes it: whole if short, else its start, marked cut."""
    return text if len(text) <= EXCERPT_CHARS else text[:EXCERPT_CHARS] + " [...]"


@dataclass(frozen=True)
class LLMRole(Generic[In, Out]):
    """One role answered by a model: the role's prompt card, its reply parsed into the
    role's output contract, re-asked on a bad answer. Typed per contract, so an LLM role
    fills the same ``Role[In, Out]`` slot as the offline one."""

    role: RoleName
    model: ChatModel
    repair_attempts: int = 2
    log: AttemptLog | None = None
    text_schema: bool = True  # a plain-text role asked for an array of sentences (or not)

    async def __call__(self, inp: In, seed: int) -> Out:
        messages = render(self.role, inp)
        schema = reply_schema(self.role, inp, text=self.text_schema)
        tried: list[Attempt] = []
        try:
            for attempt in range(self.repair_attempts + 1):
                # An EndpointFailure is not caught: it stops the run, not this episode.
                text = await self.model.complete(self.role, messages, seed, schema)
                try:
                    answer = parse(self.role, text, inp)
                except OutputError as exc:
                    reask = REASK.format(error=exc)
                    last = attempt == self.repair_attempts
                    tried.append(Attempt(attempt, text, str(exc), None if last else reask))
                    messages = [
                        *messages,
                        {"role": "assistant", "content": excerpt(text)},
                        {"role": "user", "content": reask},
                    ]
                    continue
                tried.append(Attempt(attempt, text, None, None))
                return cast(Out, answer)  # parse validated it against the role's contract
        finally:
            if self.log is not None and tried:
                digest = input_digest(json.loads(inp.model_dump_json()))
                self.log.record(self.role, digest, seed, tried)
        problem = tried[-1].error
        raise RoleFailure(self.role, f"invalid after {self.repair_attempts} re-asks: {problem}")
