"""The batch job APIs: OpenAI's (files and batches endpoints, at any OpenAI-compatible base
URL that has them) and a folder that ``vllm run-batch`` answers for a local model.

Both speak ``batch_api.BatchAPI``; every failure is a ProviderError saying whether trying
again may help, as a provider's live calls do.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
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


def answer_lines(lines: Iterable[bytes], where: str, most: int) -> list[tuple[int, dict[str, Any]]]:
    """A result file's answers with their line numbers, read line by line: ``ProviderError``
    (no retry mends a file) naming the file and line for a line that is not UTF-8, not JSON
    or holds no custom_id, for a custom_id that comes again, and for a file past ``most``
    bytes, larger than a job's answers can be. Nothing is handed on from a file refused."""
    found: list[tuple[int, dict[str, Any]]] = []
    first: dict[str, int] = {}  # custom_id -> the line it came on
    total = 0
    for number, raw in enumerate(lines, 1):
        total += len(raw)
        if total > most:
            raise ProviderError(
                f"{where}: more than {most:,} bytes, more than the answers to a job of "
                f"{MAX_LINES:,} calls can be",
                retryable=False,
            )
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise ProviderError(f"{where}, line {number}: not UTF-8", retryable=False) from None
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            raise ProviderError(f"{where}, line {number}: not JSON", retryable=False) from None
        if not isinstance(entry, dict) or not isinstance(entry.get("custom_id"), str):
            raise ProviderError(f"{where}, line {number}: no custom_id", retryable=False)
        key = entry["custom_id"]
        if key in first:
            raise ProviderError(
                f"{where}, line {number}: custom_id {key[:16]} again (first on line "
                f"{first[key]}); a file that answers a call twice is not read",
                retryable=False,
            )
        first[key] = number
        found.append((number, entry))
    return found


class OpenAIBatches:
    """OpenAI's Batch API for one model's endpoint: the key read from its variable, as the
    live calls read it. A result file may hold MAX_LINES answers, each up to the model's
    ``max_reply_bytes``, so its downloads are bounded by their product."""

    folder: Path | None = None  # the provider keeps the jobs

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

    async def lines(self, file_id: str) -> list[tuple[int, dict[str, Any]]]:
        """A result file's answers by line (``answer_lines``), its download bounded as the
        client's is."""
        try:
            content = await self.client().files.content(file_id)
        except (openai.OpenAIError, ValueError) as exc:
            raise provider_error(exc) from exc
        most = self.cfg.max_reply_bytes * MAX_LINES
        return answer_lines(
            content.content.splitlines(keepends=True), f"batch file {file_id}", most
        )

    async def aclose(self) -> None:
        """Close the SDK client, if one was made."""
        if self._client is not None:
            await self._client.close()
            self._client = None


class FolderBatches:
    """Jobs as files in a folder, for a local model served by ``vllm run-batch``: a job is
    ``TOKEN.jsonl``, in the OpenAI Batch format vLLM reads, and is done once
    ``TOKEN.out.jsonl`` is there, written whole: answered into ``TOKEN.out.jsonl.part`` and
    renamed into place (``command``). A file still growing is never read: it counts as
    done only when it ends a line and its size held from one look to the next. It is read
    line by line within ``most`` bytes, as the API path's downloads are. Nothing is sent
    anywhere."""

    def __init__(self, folder: Path, model: str, most: int) -> None:
        self.folder, self.model, self.most = folder, model, most
        self._sizes: dict[str, int] = {}  # the output's size at the last look, by job

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
        """Completed once the output file is there, whole; in progress until then."""
        output = self._output(batch_id)
        try:
            size = output.stat().st_size
            with output.open("rb") as f:
                f.seek(max(size - 1, 0))
                ends_a_line = f.read(1) in (b"\n", b"")
        except FileNotFoundError:
            return BatchState("in_progress", said=f"answer it with: {self.command(batch_id)}")
        settled = self._sizes.get(batch_id) == size
        self._sizes[batch_id] = size
        if not (settled and ends_a_line):
            return BatchState("in_progress", said=f"{output} is still being written")
        return BatchState("completed", str(output))

    async def lines(self, file_id: str) -> list[tuple[int, dict[str, Any]]]:
        """The output file's answers by line (``answer_lines``)."""
        try:
            with open(file_id, "rb") as f:
                return answer_lines(f, file_id, self.most)
        except OSError as exc:
            raise ProviderError(
                f"{file_id}: cannot be read ({exc.strerror})", retryable=False
            ) from None

    async def aclose(self) -> None:
        """Nothing to close."""

    def command(self, token: str) -> str:
        """The vLLM command that answers the job, its answers renamed into place whole
        (the progress line shows it while the run waits)."""
        done = self._output(token)
        return (
            f"vllm run-batch -i {self._input(token)} -o {done}.part --model {self.model} "
            f"&& mv {done}.part {done}"
        )
