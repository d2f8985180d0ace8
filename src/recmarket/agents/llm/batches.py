"""Batch mode: the calls that wait on no other pending call, sent as one batch job.

In a cell whose episodes are independent (NoRep, Platform-Centric) every episode reaches
the same stage at about the same time, and each stage's calls wait on nothing but their
own episode. ``BatchQueue`` gathers the calls that arrive until none has come for
``SETTLE`` seconds, writes them as one job (``batch_api``), polls it and hands every
answer to the call that waits for it; a request the job returned failed goes into the
next job, up to the model's ``max_retries`` times. Batching a chain whose every call
waits on the one before (LocalRep) would make each round wait hours, so those cells stay
live (``batchable``).

Every job is kept in the run's store (``BatchStore``) before it is submitted, with the
calls it holds and, once known, its id. A run killed while a job is in progress resumes by
polling that job: the replayed episodes ask the same calls, and a call a stored job holds
waits for it rather than being sent again. A job planned but killed before its id was
stored is looked up by its token among the provider's jobs before it is submitted. Answers
are stored in the call store one by one as they are read, and a job is marked read only
when every call of it is stored or sent again, so no answer is paid for twice.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import sqlite3
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from recmarket.agents.llm.api import ChatRequest, ProviderError, Reply, SendLive
from recmarket.agents.llm.batch_api import BatchAPI, BatchState, job_line, outcome
from recmarket.agents.llm.batch_jobs import MAX_LINES
from recmarket.agents.llm.config import ModelConfig, NoBatchAPI
from recmarket.agents.llm.wrappers import VISIBLE_WAIT, EndpointFailure, WaitNotice
from recmarket.sqlite_files import connect, named_errors

SETTLE = 0.5  # seconds without a new call before the gathered calls go as one job
FIRST_LOOK = 0.5  # seconds before the first look at a job; each later look waits twice as
# long, up to the ``batch_poll`` setting
SCHEMA = """
CREATE TABLE IF NOT EXISTS llm_batches (
    token TEXT PRIMARY KEY, model TEXT NOT NULL, base_url TEXT NOT NULL, keys TEXT NOT NULL,
    batch_id TEXT, state TEXT NOT NULL, planned TEXT NOT NULL, folder TEXT NOT NULL DEFAULT '')
"""
# The folder a job's file went to ('' for a provider's batch API), added to older stores.
ADD_FOLDER = "ALTER TABLE llm_batches ADD COLUMN folder TEXT NOT NULL DEFAULT ''"
Body = Callable[[ChatRequest], dict[str, Any]]


@dataclass(frozen=True)
class StoredJob:
    """A job as the store keeps it: the provider's id (None: never submitted, as far as
    the store knows), its calls' keys and the folder it went to (None: a batch API)."""

    batch_id: str | None
    keys: list[str]
    folder: Path | None


class EarlierJobs(UserWarning):
    """A run resumed in live mode finds batch jobs an earlier run submitted: their answers
    are read from them, and those calls are not bought again."""


def where_jobs_go(folder: Path | None) -> str:
    """A batch API's place in words, for a refusal that names the setting."""
    return f"the folder {folder} (batch_dir)" if folder else "the provider's batch API"


class BatchStore:
    """The jobs of a run, in its store: planned, submitted (with the provider's id), read."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.db = connect(path, timeout=30) if path else sqlite3.connect(":memory:")
        self._execute(SCHEMA)
        columns = {row[1] for row in self._execute("PRAGMA table_info(llm_batches)")}
        if "folder" not in columns:
            self._execute(ADD_FOLDER)

    def _execute(self, sql: str, params: Any = ()) -> Any:
        with named_errors(self.path or "the batch store"):
            return self.db.execute(sql, params)

    def open_jobs(self, cfg: ModelConfig) -> dict[str, StoredJob]:
        """The model's jobs not yet read, by token."""
        rows = self._execute(
            "SELECT token, batch_id, keys, folder FROM llm_batches "
            "WHERE model = ? AND base_url = ? AND state != 'read'",
            (cfg.name, cfg.base_url),
        ).fetchall()
        return {t: StoredJob(b, json.loads(k), Path(f) if f else None) for t, b, k, f in rows}

    def plan(self, token: str, cfg: ModelConfig, keys: list[str], folder: Path | None) -> None:
        """Keep a job before it is submitted, with where it goes."""
        now = datetime.now(UTC).isoformat(timespec="seconds")
        self._execute(
            "INSERT OR IGNORE INTO llm_batches VALUES (?, ?, ?, ?, NULL, 'planned', ?, ?)",
            (token, cfg.name, cfg.base_url, json.dumps(keys), now, str(folder or "")),
        )

    def submitted(self, token: str, batch_id: str) -> None:
        """The job's id, once the provider gave it."""
        self._execute(
            "UPDATE llm_batches SET batch_id = ?, state = 'submitted' WHERE token = ?",
            (batch_id, token),
        )

    def read(self, token: str) -> None:
        """Every call of the job is stored or sent again."""
        self._execute("UPDATE llm_batches SET state = 'read' WHERE token = ?", (token,))

    def jobs(self) -> int:
        """Jobs ever planned in this store."""
        return int(self._execute("SELECT COUNT(*) FROM llm_batches").fetchone()[0])

    def close(self) -> None:
        """Close the store."""
        self.db.close()


@dataclass
class Job:
    """A job this process polls: its calls, and those not yet stored or sent again."""

    token: str
    batch_id: str | None
    keys: list[str]
    open: set[str] = field(default_factory=set)
    lines: dict[str, dict[str, Any]] | None = None  # its results, once read
    status: str = ""


def answers_of(
    job: Job, files: list[tuple[str, list[tuple[int, dict[str, Any]]]]]
) -> dict[str, dict[str, Any]]:
    """A job's answers by call key, from its result files' lines; ``ProviderError`` naming
    the file and line where a line answers no call of the job or a call answered already
    (in the same file or the other), so nothing of a file that could poison the call store
    is handed out."""
    keys = set(job.keys)
    found: dict[str, dict[str, Any]] = {}
    where: dict[str, str] = {}
    for file_id, lines in files:
        for number, line in lines:
            key = line["custom_id"]
            if key not in keys:
                raise ProviderError(
                    f"{file_id}, line {number}: custom_id {key[:16]} is no call of batch "
                    f"{job.batch_id}; a file that answers other calls is not read",
                    retryable=False,
                )
            if key in found:
                raise ProviderError(
                    f"{file_id}, line {number}: custom_id {key[:16]} answered again (first "
                    f"at {where[key]}); a file that answers a call twice is not read",
                    retryable=False,
                )
            found[key], where[key] = line, f"{file_id}, line {number}"
    return found


class BatchQueue:
    """One model's calls in batch mode (see the module's docstring)."""

    def __init__(
        self,
        cfg: ModelConfig,
        api: BatchAPI,
        store: BatchStore,
        body: Body,
        poll: float,
        on_wait: WaitNotice | None = None,
        reads_only: bool = False,
    ) -> None:
        self.cfg, self.api, self.store, self.body, self.poll = cfg, api, store, body, poll
        self.on_wait = on_wait
        # Live mode reading the jobs an earlier run submitted: no job is submitted, and a
        # call they do not answer is sent live (``SendLive``).
        self.reads_only = reads_only
        self.requests: dict[str, ChatRequest] = {}
        self.waiting: dict[str, list[asyncio.Future[Reply]]] = {}
        self.pending: list[str] = []  # asked, in no job yet
        self.failures: dict[str, int] = {}
        self.jobs: dict[str, Job] = {}  # by token: the jobs this process knows
        self.job_of: dict[str, str] = {}  # key -> token of the open job that holds it
        self.tasks: set[asyncio.Task[None]] = set()
        self._timer: asyncio.TimerHandle | None = None
        for token, stored in store.open_jobs(cfg).items():
            if stored.folder != api.folder:
                raise NoBatchAPI(
                    f"model {cfg.name}: batch job {token[:12]} of an earlier run went to "
                    f"{where_jobs_go(stored.folder)}, and this run's jobs go to "
                    f"{where_jobs_go(api.folder)}; "
                    + (
                        f'set batch_dir = "{stored.folder}" in the [llm] table'
                        if stored.folder
                        else "leave batch_dir unset in the [llm] table"
                    )
                    + " to read its answers"
                )
            self._adopt(Job(token, stored.batch_id, stored.keys, set(stored.keys)))

    @property
    def open_calls(self) -> int:
        """Calls of the jobs it follows that are not stored yet."""
        return len(self.job_of)

    def _adopt(self, job: Job) -> None:
        self.jobs[job.token] = job
        for key in job.open:
            self.job_of[key] = job.token

    async def answer(self, key: str, request: ChatRequest) -> Reply:
        """The reply to the call ``key``, from the job that holds it or the next one."""
        self.requests[key] = request
        future: asyncio.Future[Reply] = asyncio.get_running_loop().create_future()
        self.waiting.setdefault(key, []).append(future)
        token = self.job_of.get(key)
        if token is None:
            if len(self.waiting[key]) == 1:
                self._requeue(key)
        else:
            job = self.jobs[token]
            if job.lines is not None:
                self._deliver(job, key)
            elif not any(t.get_name() == token for t in self.tasks):
                self._start(self._follow(job), token)
        return await future

    def stored(self, key: str) -> None:
        """The call's answer is in the call store: its job may be marked read."""
        token = self.job_of.pop(key, None)
        if token is not None:
            self._close(self.jobs[token], key)

    def _close(self, job: Job, key: str) -> None:
        job.open.discard(key)
        if not job.open:
            self.store.read(job.token)

    def _settle(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer = asyncio.get_running_loop().call_later(SETTLE, self._flush)

    def _start(self, work: Any, name: str) -> None:
        task = asyncio.get_running_loop().create_task(work, name=name)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def _flush(self) -> None:
        self._timer = None
        keys, self.pending = self.pending, []
        for start in range(0, len(keys), MAX_LINES):
            chunk = keys[start : start + MAX_LINES]
            # Its own name, never a digest of its calls: a call sent again alone must not
            # find the job that failed it (``find``) and read the failure again.
            token = secrets.token_hex(16)
            job = Job(token, None, chunk, set(chunk))
            self.store.plan(token, self.cfg, chunk, self.api.folder)
            self._adopt(job)
            self._start(self._follow(job), token)

    async def _follow(self, job: Job) -> None:
        """Submit the job (unless it was), poll it to its end, read its answers and hand
        them out; any failure goes to every call waiting on it."""
        try:
            if job.batch_id is None:
                job.batch_id = await self._called(lambda: self.api.find(job.token))
                unasked = not all(k in self.requests for k in job.keys)
                if job.batch_id is None and (unasked or self.reads_only):
                    self._abandon(job)  # planned by a killed run, never submitted
                    return
                if job.batch_id is None:
                    lines = "\n".join(job_line(k, self.body(self.requests[k])) for k in job.keys)
                    job.batch_id = await self._called(
                        lambda: self.api.submit(lines.encode(), job.token)
                    )
                self.store.submitted(job.token, job.batch_id)
            batch_id = job.batch_id
            state = await self._polled(batch_id, len(job.keys))
            job.status = state.status
            read = [(f, await self._lines(f)) for f in (state.output_file, state.error_file) if f]
            job.lines = answers_of(job, read)
        except (ProviderError, EndpointFailure) as error:
            failure = error if isinstance(error, EndpointFailure) else self._failure(error)
            for key in job.keys:
                for future in self.waiting.pop(key, []):
                    if not future.done():
                        future.set_exception(failure)
            return
        for key in list(job.keys):
            if key in self.waiting:
                self._deliver(job, key)

    def _abandon(self, job: Job) -> None:
        """Forget a job that was never submitted; its calls asked now go in the next one."""
        self.store.read(job.token)
        for key in job.keys:
            self.job_of.pop(key, None)
            if key in self.waiting:
                self._requeue(key)

    def _requeue(self, key: str) -> None:
        """Send ``key`` in the next job; live, when this queue only reads earlier jobs."""
        if not self.reads_only:
            self.pending.append(key)
            self._settle()
            return
        self.requests.pop(key, None)
        for future in self.waiting.pop(key, []):
            if not future.done():
                future.set_exception(SendLive(key))

    def _deliver(self, job: Job, key: str) -> None:
        """Hand ``key``'s answer to its waiting calls, or send it again in the next job."""
        assert job.lines is not None
        futures = self.waiting.pop(key, [])
        try:
            reply = outcome(job.lines.get(key), self.requests[key], job.status)
        except ProviderError as error:
            self.job_of.pop(key, None)
            self._close(job, key)
            self.failures[key] = self.failures.get(key, 0) + 1
            if not error.retryable or self.failures[key] > self.cfg.max_retries:
                cause = f"{error.cause}, after {self.failures[key]} batch job(s)"
                for future in futures:
                    future.set_exception(self._failure(ProviderError(cause, retryable=False)))
                return
            self.waiting[key] = futures
            self._requeue(key)
            return
        self.requests.pop(key, None)
        for future in futures:
            if not future.done():
                future.set_result(reply)

    def _failure(self, error: ProviderError) -> EndpointFailure:
        return EndpointFailure.at(self.cfg, f"batch mode: {error.cause}")

    async def _called(self, call: Callable[[], Awaitable[Any]]) -> Any:
        """A batch API call, retried like a live one where a retry may help."""
        for attempt in range(self.cfg.max_retries + 1):
            try:
                return await call()
            except ProviderError as error:
                if not error.retryable or attempt == self.cfg.max_retries:
                    raise
                wait = error.retry_after or 2.0**attempt
                await asyncio.sleep(min(wait, self.cfg.retry_after_cap))
        raise AssertionError("unreachable: the last attempt raises")

    async def _lines(self, file_id: str) -> list[tuple[int, dict[str, Any]]]:
        lines: list[tuple[int, dict[str, Any]]] = await self._called(
            lambda: self.api.lines(file_id)
        )
        return lines

    async def _polled(self, batch_id: str, size: int) -> BatchState:
        """Look at the job until it ends, each look twice as late as the one before."""
        began, delay = time.monotonic(), FIRST_LOOK
        while True:
            await asyncio.sleep(delay)
            state = await self._called(lambda: self.api.state(batch_id))
            if state.done:
                break
            delay = min(2 * delay, self.poll)
            waited = time.monotonic() - began
            if self.on_wait is not None and waited > VISIBLE_WAIT:
                said = f"; {state.said}" if state.said else ""
                self.on_wait(
                    f"{self.cfg.name}: batch {batch_id} of {size} calls {state.status} "
                    f"for {waited:.0f} s{said}"
                )
        if self.on_wait is not None:
            self.on_wait("")
        if state.status == "failed" and state.output_file is None:
            said = state.said or "no reason given"
            raise EndpointFailure.at(self.cfg, f"batch mode: batch {batch_id} failed ({said})")
        return state

    async def aclose(self) -> None:
        """Stop following jobs (they go on at the provider; a rerun polls them)."""
        if self._timer is not None:
            self._timer.cancel()
        for task in list(self.tasks):
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        await self.api.aclose()
