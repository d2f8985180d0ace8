"""The batch queue against an in-memory batch API: calls gathered into one job, a job
planned by a killed run found by its token rather than submitted again (or forgotten when
it was never submitted), failed requests sent again, a job that fails whole, answer files
that could poison the call store refused whole, a folder job read only once written whole,
and a live run that reads the jobs an earlier batch run submitted."""

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from recmarket.agents.llm import batches
from recmarket.agents.llm.api import ChatRequest, ProviderError, SendLive
from recmarket.agents.llm.backend import LLMBackend
from recmarket.agents.llm.batch_api import BatchState
from recmarket.agents.llm.batch_jobs import FolderBatches, answer_lines
from recmarket.agents.llm.batches import BatchQueue, BatchStore, EarlierJobs
from recmarket.agents.llm.config import LLMConfig, ModelConfig, NoBatchAPI
from recmarket.agents.llm.wrappers import EndpointFailure

CFG = ModelConfig(name="m", base_url="http://fake/v1", max_retries=2)


class MemoryJobs:
    """Jobs answered at once: each line's reply is its custom_id; ``fail`` lists custom_ids
    failed at their first submission."""

    folder = None  # a provider's batch API

    def __init__(
        self,
        fail: frozenset[str] = frozenset(),
        whole: str = "completed",
        extra: tuple[str, ...] = (),
    ) -> None:
        self.fail, self.whole, self.extra = fail, whole, extra  # extra: more answered ids
        self.jobs: dict[str, list[dict[str, Any]]] = {}
        self.tokens: dict[str, str] = {}
        self.sent: list[str] = []

    async def submit(self, lines: bytes, token: str) -> str:
        job = f"job{len(self.jobs)}"
        self.jobs[job] = [json.loads(line) for line in lines.decode().splitlines()]
        self.tokens[token] = job
        return job

    async def find(self, token: str) -> str | None:
        return self.tokens.get(token)

    async def state(self, batch_id: str) -> BatchState:
        return BatchState(self.whole, batch_id if self.whole == "completed" else None)

    async def lines(self, file_id: str) -> list[tuple[int, dict[str, Any]]]:
        out = []
        for key in [t["custom_id"] for t in self.jobs[file_id]] + list(self.extra):
            self.sent.append(key)
            failed = key in self.fail and self.sent.count(key) == 1
            body = {
                "id": "x",
                "object": "chat.completion",
                "created": 0,
                "model": "m",
                "choices": [
                    {
                        "index": 0,
                        "finish_reason": "stop",
                        "message": {"role": "assistant", "content": key},
                    }
                ],
                "usage": {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4},
            }
            response = {"status_code": 500 if failed else 200, "body": {} if failed else body}
            out.append({"custom_id": key, "response": response})
        return list(enumerate(out, 1))

    async def aclose(self) -> None:
        pass


def request(text: str) -> ChatRequest:
    return ChatRequest("query", [{"role": "user", "content": text}], 8, 0.0, None)


def body(sent: ChatRequest) -> dict[str, Any]:
    return {"messages": sent.messages}


@pytest.fixture(autouse=True)
def quick(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(batches, "SETTLE", 0.01)
    monkeypatch.setattr(batches, "FIRST_LOOK", 0.01)


def ask(queue: BatchQueue, keys: list[str]) -> list[str]:
    async def run() -> list[str]:
        try:
            replies = await asyncio.gather(*(queue.answer(k, request(k)) for k in keys))
            for k in keys:
                queue.stored(k)
            return [r.text for r in replies]
        finally:
            await queue.aclose()

    return asyncio.run(run())


def test_calls_asked_together_go_as_one_job_and_failed_ones_in_the_next(tmp_path: Path) -> None:
    api = MemoryJobs(fail=frozenset({"b"}))
    store = BatchStore(tmp_path / "s.sqlite")
    assert ask(BatchQueue(CFG, api, store, body, 0.01), ["a", "b", "c"]) == ["a", "b", "c"]
    assert [sorted(t["custom_id"] for t in job) for job in api.jobs.values()] == [
        ["a", "b", "c"],
        ["b"],
    ]
    assert store.open_jobs(CFG) == {}  # every job read


def test_a_job_planned_by_a_killed_run_is_found_by_its_token_not_submitted_again(
    tmp_path: Path,
) -> None:
    api, store = MemoryJobs(), BatchStore(tmp_path / "s.sqlite")
    asyncio.run(api.submit(b'{"custom_id": "a", "body": {}}', "t1"))  # submitted, id lost
    store.plan("t1", CFG, ["a"], None)
    assert ask(BatchQueue(CFG, api, store, body, 0.01), ["a"]) == ["a"]
    assert len(api.jobs) == 1


def test_a_job_planned_but_never_submitted_is_forgotten_and_its_calls_sent(tmp_path: Path) -> None:
    api, store = MemoryJobs(), BatchStore(tmp_path / "s.sqlite")
    store.plan("t1", CFG, ["a", "b"], None)  # killed before submitting
    assert ask(BatchQueue(CFG, api, store, body, 0.01), ["a"]) == ["a"]
    assert [[t["custom_id"] for t in job] for job in api.jobs.values()] == [["a"]]


def test_a_job_that_fails_whole_stops_the_run_in_one_line(tmp_path: Path) -> None:
    queue = BatchQueue(CFG, MemoryJobs(whole="failed"), BatchStore(None), body, 0.01)
    with pytest.raises(EndpointFailure, match="batch mode: batch job0 failed"):
        ask(queue, ["a"])


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        (("a",), r"line 3: custom_id a answered again \(first at job0, line 1\)"),
        (("z",), r"line 3: custom_id z is no call of batch job0"),
    ],
)
def test_an_answer_file_that_could_poison_the_store_is_refused_whole(
    tmp_path: Path, extra: tuple[str, ...], said: str
) -> None:
    store = BatchStore(tmp_path / "s.sqlite")
    queue = BatchQueue(CFG, MemoryJobs(extra=extra), store, body, 0.01)
    with pytest.raises(EndpointFailure, match=said):
        ask(queue, ["a", "b"])
    assert [job.keys for job in store.open_jobs(CFG).values()] == [["a", "b"]]  # unread


def test_answer_lines_are_read_one_by_one_within_their_bound() -> None:
    good = b'{"custom_id": "a"}\n'
    assert answer_lines([good, b"\n"], "f", 100) == [(1, {"custom_id": "a"})]
    with pytest.raises(ProviderError, match="f, line 2: not UTF-8"):
        answer_lines([good, b'{"custom_id": "\xff"}\n'], "f", 100)
    with pytest.raises(ProviderError, match="f, line 2: custom_id a again"):
        answer_lines([good, good], "f", 100)
    with pytest.raises(ProviderError, match="f: more than 30 bytes"):
        answer_lines([good, good], "f", 30)


def test_a_folder_job_is_done_only_once_its_answers_are_whole(tmp_path: Path) -> None:
    folder = FolderBatches(tmp_path, "m", 1_000)
    out = tmp_path / "t.out.jsonl"

    def status() -> str:
        return asyncio.run(folder.state("t")).status

    assert "answer it with: vllm run-batch" in asyncio.run(folder.state("t")).said
    out.write_bytes(b'{"custom_id": "a"}\n{"custom_')  # being written
    assert status() == "in_progress" and status() == "in_progress"  # no line's end
    out.write_bytes(b'{"custom_id": "a"}\n{"custom_id": "b"}\n')
    assert status() == "in_progress"  # it grew since the last look
    assert status() == "completed"
    job = tmp_path / "t.jsonl"
    assert (
        folder.command("t")
        == f"vllm run-batch -i {job} -o {out}.part --model m && mv {out}.part {out}"
    )


def test_a_folder_job_resumed_without_its_folder_names_the_setting(tmp_path: Path) -> None:
    store = BatchStore(tmp_path / "s.sqlite")
    store.plan("t1", CFG, ["a"], tmp_path / "jobs")
    with pytest.raises(NoBatchAPI, match=f'set batch_dir = "{tmp_path / "jobs"}" in the'):
        BatchQueue(CFG, MemoryJobs(), store, body, 0.01)


def test_a_live_run_reads_the_jobs_submitted_before_and_submits_none(tmp_path: Path) -> None:
    api, store = MemoryJobs(), BatchStore(tmp_path / "s.sqlite")
    token = "t1"
    asyncio.run(api.submit(b'{"custom_id": "a", "body": {}}', token))
    store.plan(token, CFG, ["a"], None)
    store.submitted(token, api.tokens[token])
    queue = BatchQueue(CFG, api, store, body, 0.01, reads_only=True)
    assert queue.open_calls == 1
    assert ask(queue, ["a"]) == ["a"]  # read from the earlier job
    queue = BatchQueue(CFG, api, store, body, 0.01, reads_only=True)
    with pytest.raises(SendLive):
        ask(queue, ["b"])  # no job holds it: the caller sends it live
    assert len(api.jobs) == 1 and store.open_jobs(CFG) == {}


def test_a_live_backend_over_a_store_with_open_jobs_says_it_reads_them(tmp_path: Path) -> None:
    calls = tmp_path / "calls.sqlite"
    store = BatchStore(calls)
    store.plan("t1", CFG, ["k1", "k2"], tmp_path / "jobs")
    store.submitted("t1", "t1")
    store.close()
    settings = LLMConfig(models={"m": CFG}, roles={"default": "m"})
    with pytest.warns(EarlierJobs, match="1 batch job.* 2 calls not yet stored"):
        backend = LLMBackend(settings, [calls])
    try:
        [model] = backend.models
        assert model.batches is not None and model.batches.reads_only
        assert model.batches.api.folder == tmp_path / "jobs"  # where the job went
    finally:
        backend.close()
