"""The batch job APIs: OpenAI's (files and batches endpoints, at any OpenAI-compatible base
URL that has them) and a folder that ``vllm run-batch`` answers for a local model.

Both speak ``batch_api.BatchAPI``; every failure is a ProviderError saying whether trying
again may help, as a provider's live calls do.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import openai

from recmarket.agents.llm.api import ProviderError
from recmarket.agents.llm.batch_api import BatchState
from recmarket.agents.llm.config import ModelConfig
from recmarket.agents.llm.openai_api import provider_error, sdk_client
from recmarket.agents.llm.pace import CEILING

MAX_LINES = 10_000  # requests in one job (OpenAI takes 50,000): a killed job costs less
FIND_PAGES = 1_000  # jobs looked at when finding one by its token (newest first)
TOKEN_FIELD = "recmarket_token"  # the job's metadata field that holds the token


def _lines(text: str, where: str) -> list[dict[str, Any]]:
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            raise ProviderError(f"{where}, line {number}: not JSON", retryable=False) from None
        if not isinstance(entry, dict) or not isinstance(entry.get("custom_id"), str):
            raise ProviderError(f"{where}, line {number}: no custom_id", retryable=False)
        out.append(entry)
    return out


class OpenAIBatches:
    """OpenAI's Batch API for one model's endpoint: the key read from its variable, as the
    live calls read it. A result file may hold MAX_LINES answers, each up to the model's
    ``max_reply_bytes``, so its downloads are bounded by their product."""

    def __init__(self, cfg: ModelConfig) -> None:
        self.cfg = cfg
        self._client: openai.AsyncOpenAI | None = None

    def client(self) -> openai.AsyncOpenAI:
        """The SDK client, made at first use (a missing key is a ProviderError then)."""
        if self._client is None:
            self._client = sdk_client(self.cfg, 4, self.cfg.max_reply_bytes * MAX_LINES, CEILING)
        return self._client

    async def submit(self, lines: bytes, token: str) -> str:
        """Upload the file (purpose batch) and create the job, the token in its metadata."""
        try:
            uploaded = await self.client().files.create(
                file=(f"recmarket-{token[:16]}.jsonl", lines), purpose="batch"
            )
            job = await self.client().batches.create(
                input_file_id=uploaded.id,
                endpoint="/v1/chat/completions",
                completion_window="24h",
                metadata={TOKEN_FIELD: token},
            )
        except (openai.OpenAIError, ValueError) as exc:
            raise provider_error(exc) from exc
        return job.id

    async def find(self, token: str) -> str | None:
        """The newest job whose metadata holds ``token``, among the last FIND_PAGES."""
        try:
            seen = 0
            async for job in self.client().batches.list(limit=100):
                if (job.metadata or {}).get(TOKEN_FIELD) == token:
                    return job.id
                seen += 1
                if seen >= FIND_PAGES:
                    break
        except (openai.OpenAIError, ValueError) as exc:
            raise provider_error(exc) from exc
        return None

    async def state(self, batch_id: str) -> BatchState:
        """The job's status and result files."""
        try:
            job = await self.client().batches.retrieve(batch_id)
        except (openai.OpenAIError, ValueError) as exc:
            raise provider_error(exc) from exc
        errors = getattr(job.errors, "data", None) or []
        said = "; ".join(str(getattr(e, "message", e)) for e in errors)[:200]
        return BatchState(job.status, job.output_file_id, job.error_file_id, said)

    async def lines(self, file_id: str) -> list[dict[str, Any]]:
        """A result file's lines."""
        try:
            content = await self.client().files.content(file_id)
        except (openai.OpenAIError, ValueError) as exc:
            raise provider_error(exc) from exc
        return _lines(content.text, f"batch file {file_id}")

    async def aclose(self) -> None:
        """Close the SDK client, if one was made."""
        if self._client is not None:
            await self._client.close()
            self._client = None


class FolderBatches:
    """Jobs as files in a folder, for a local model served by ``vllm run-batch``: a job is
    ``TOKEN.jsonl``, in the OpenAI Batch format vLLM reads, and is done once
    ``TOKEN.out.jsonl`` is there (``vllm run-batch -i TOKEN.jsonl -o TOKEN.out.jsonl
    --model NAME``, or anything that writes the same lines). Nothing is sent anywhere."""

    def __init__(self, folder: Path, model: str) -> None:
        self.folder, self.model = folder, model

    def _input(self, token: str) -> Path:
        return self.folder / f"{token}.jsonl"

    def _output(self, token: str) -> Path:
        return self.folder / f"{token}.out.jsonl"

    async def submit(self, lines: bytes, token: str) -> str:
        """Write the job's file (whole, then renamed: a reader never sees half of it)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        partial = self._input(token).with_suffix(".part")
        partial.write_bytes(lines)
        partial.replace(self._input(token))
        return token

    async def find(self, token: str) -> str | None:
        """The job, if its file was written."""
        return token if self._input(token).exists() else None

    async def state(self, batch_id: str) -> BatchState:
        """Completed once the output file is there; in progress until then."""
        done = self._output(batch_id).exists()
        return (
            BatchState("completed", str(self._output(batch_id)))
            if done
            else BatchState("in_progress")
        )

    async def lines(self, file_id: str) -> list[dict[str, Any]]:
        """The output file's lines."""
        return _lines(Path(file_id).read_text(), file_id)

    async def aclose(self) -> None:
        """Nothing to close."""

    def command(self, token: str, model: str) -> str:
        """The vLLM command that answers the job."""
        return f"vllm run-batch -i {self._input(token)} -o {self._output(token)} --model {model}"
