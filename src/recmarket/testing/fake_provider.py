"""An in-process chat provider for unit tests: no server, no sockets.

It answers like the loopback fake server (a valid answer for the role, read off the
prompt) unless its script says otherwise: each scripted step is used by one request, in
order, and is either a ProviderError to raise or a text to answer with. It records every
request it receives, and can hold each one for ``latency`` seconds.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Iterable

from recmarket.agents.llm.api import ChatRequest, ProviderError, Reply, trusted_tokens
from recmarket.testing.fake_replies import answer, role_of


class FakeChatAPI:
    """A scripted provider for the wrappers' tests: each call takes the script's next item
    (an error raised, or a reply's text), then answers as the fake endpoint does."""

    def __init__(self, script: Iterable[ProviderError | str] = (), latency: float = 0.0) -> None:
        self.script: deque[ProviderError | str] = deque(script)
        self.latency = latency
        self.requests: list[ChatRequest] = []
        self.closed = False

    async def generate(self, request: ChatRequest) -> Reply:
        self.requests.append(request)
        if self.latency:
            await asyncio.sleep(self.latency)
        step = self.script.popleft() if self.script else None
        if isinstance(step, ProviderError):
            raise step
        if step is None:
            user = request.messages[1]["content"] if len(request.messages) > 1 else ""
            step = answer(role_of(request.messages), user, request.response_format is not None)
        tokens = trusted_tokens(request, request.characters // 4, len(step) // 4, step)
        return Reply(step, tokens.prompt, tokens.completion)

    async def aclose(self) -> None:
        self.closed = True
