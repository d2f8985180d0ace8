"""What a batch job API offers (OpenAI's Batch API, and a folder that ``vllm run-batch``
answers), and how one line of a job and of its results is written and read.

A job is a JSONL file of requests, each ``{"custom_id", "method", "url", "body"}`` with the
body a live call would send; its results are JSONL lines ``{"custom_id", "response":
{"status_code", "body"}, "error"}`` in any order. The ``custom_id`` is the call's key in the
call store, so a result finds its call whatever the order, and a resumed run finds the
job that holds a call.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from openai.types.chat import ChatCompletion
from pydantic import ValidationError

from recmarket.agents.llm.api import ChatRequest, ProviderError, Reply
from recmarket.agents.llm.config import BATCH
from recmarket.agents.llm.openai_api import RETRYABLE_STATUS, completion_reply

CHAT_URL = "/v1/chat/completions"
# A job's states after which it changes no more: its files hold every answer it will give.
DONE = frozenset({"completed", "failed", "expired", "cancelled"})


@dataclass(frozen=True)
class BatchState:
    """A job's status and the files its answers and failures are in, once done."""

    status: str
    output_file: str | None = None
    error_file: str | None = None
    said: str = ""  # the job's own errors, where it failed whole (a malformed file)

    @property
    def done(self) -> bool:
        """Whether the job has stopped (its files are final)."""
        return self.status in DONE


class BatchAPI(Protocol):
    """A provider's batch jobs: submit a file, find a job by the token it was submitted
    with, look at its state, read a result file's lines. ``folder`` is the folder its jobs
    are files in (None: the provider's own batch API), which the run's store records with
    each job, so a resume knows where a job went."""

    @property
    def folder(self) -> Path | None:
        """The folder its jobs are files in; None for a provider's batch API."""
        ...

    async def submit(self, lines: bytes, token: str) -> str:
        """Upload the requests and start a job marked with ``token``; its id."""
        ...

    async def find(self, token: str) -> str | None:
        """The id of a job submitted with ``token`` (a run killed before it stored the id
        finds it here rather than submitting it again), or None."""
        ...

    async def state(self, batch_id: str) -> BatchState:
        """The job's state now."""
        ...

    async def lines(self, file_id: str) -> list[tuple[int, dict[str, Any]]]:
        """A result file's answers with their line numbers (``batch_jobs.answer_lines``)."""
        ...

    async def aclose(self) -> None:
        """Release its connections."""
        ...


def job_line(key: str, body: dict[str, Any]) -> str:
    """One request of a job: the call's key as its custom_id, the live call's body."""
    return json.dumps({"custom_id": key, "method": "POST", "url": CHAT_URL, "body": body})


def outcome(line: dict[str, Any] | None, request: ChatRequest, status: str) -> Reply:
    """The reply a result line holds for ``request``, or ProviderError saying why it holds
    none (a failed request, a job that expired, a malformed line), and whether the call is
    worth sending again."""
    if line is None:
        raise ProviderError(f"the batch ended {status} without an answer to it", retryable=True)
    response = line.get("response") or {}
    code = response.get("status_code")
    body = response.get("body")
    if line.get("error") or code != 200 or not isinstance(body, dict):
        said = line.get("error") or (body.get("error") if isinstance(body, dict) else None)
        cause = f"HTTP {code}" if code is not None else "failed"
        if said:
            message = said.get("message", said) if isinstance(said, dict) else said
            cause += f": {str(message)[:120]}"
        retry = code is None or code in RETRYABLE_STATUS
        raise ProviderError(f"a batch request {cause}", retryable=retry)
    try:
        completion = ChatCompletion.model_validate(body)
    except ValidationError as exc:
        cause = f"a batch answer is no chat completion ({exc})"
        raise ProviderError(cause, retryable=True) from None
    return completion_reply(completion, request, BATCH)
