"""The batch queue against an in-memory batch API: calls gathered into one job, a job
planned by a killed run found by its token rather than submitted again (or forgotten when
it was never submitted), failed requests sent again, and a job that fails whole."""

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from recmarket.agents.llm import batches
from recmarket.agents.llm.api import ChatRequest
from recmarket.agents.llm.batch_api import BatchState
from recmarket.agents.llm.batches import BatchQueue, BatchStore
from recmarket.agents.llm.config import ModelConfig
from recmarket.agents.llm.wrappers import EndpointFailure

CFG = ModelConfig(name="m", base_url="http://fake/v1", max_retries=2)


class MemoryJobs:
    """Jobs answered at once: each line's reply is its custom_id; ``fail`` lists custom_ids
    failed at their first submission."""

    def __init__(self, fail: frozenset[str] = frozenset(), whole: str = "completed") -> None:
        self.fail, self.whole = fail, whole
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

    async def lines(self, file_id: str) -> list[dict[str, Any]]:
        out = []
        for task in self.jobs[file_id]:
            key = task["custom_id"]
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
        return out

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
    store.plan("t1", CFG, ["a"])
    assert ask(BatchQueue(CFG, api, store, body, 0.01), ["a"]) == ["a"]
    assert len(api.jobs) == 1


def test_a_job_planned_but_never_submitted_is_forgotten_and_its_calls_sent(tmp_path: Path) -> None:
    api, store = MemoryJobs(), BatchStore(tmp_path / "s.sqlite")
    store.plan("t1", CFG, ["a", "b"])  # killed before submitting
    assert ask(BatchQueue(CFG, api, store, body, 0.01), ["a"]) == ["a"]
    assert [[t["custom_id"] for t in job] for job in api.jobs.values()] == [["a"]]


def test_a_job_that_fails_whole_stops_the_run_in_one_line(tmp_path: Path) -> None:
    queue = BatchQueue(CFG, MemoryJobs(whole="failed"), BatchStore(None), body, 0.01)
    with pytest.raises(EndpointFailure, match="batch mode: batch job0 failed"):
        ask(queue, ["a"])
