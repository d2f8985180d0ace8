"""The LLM call store and the spend account on damaged files: one line naming the file."""

import asyncio
import multiprocessing
import sqlite3
from pathlib import Path

import pytest

from recmarket.agents.llm.cache import CachedCall, CallCache
from recmarket.agents.llm.ledger import SpendAccount
from recmarket.sqlite_files import StoreError


def garbage(path: Path) -> Path:
    path.write_bytes(b"this is not a database " * 200)
    return path


def test_a_corrupt_shared_call_store_is_named(tmp_path: Path) -> None:
    shared = garbage(tmp_path / "llm-calls.sqlite")
    with pytest.raises(StoreError, match=rf"{shared}: corrupt"):
        CallCache([tmp_path / "run.sqlite", shared])


def test_a_corrupt_spend_account_is_named(tmp_path: Path) -> None:
    account = garbage(tmp_path / "llm-spend.sqlite")
    with pytest.raises(StoreError, match=rf"{account}: corrupt"):
        SpendAccount(account, budget=1.0)


def _open_and_write(path: str, worker: int) -> None:
    cache = CallCache([Path(path)])
    cache.put(f"k{worker}", "query", "m", "u", [], {}, worker, CachedCall("x", 1, 1, 0.1, 0), 0)
    cache.close()


def test_processes_creating_one_shared_store_at_once_all_succeed(tmp_path: Path) -> None:
    """Worker processes of a reproduce open the shared call store together: switching the
    new file to WAL must wait its turn, not fail with "locked"."""
    path = tmp_path / "llm-calls.sqlite"
    context = multiprocessing.get_context()
    procs = [context.Process(target=_open_and_write, args=(str(path), i)) for i in range(8)]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join(30)
    assert [proc.exitcode for proc in procs] == [0] * 8
    cache = CallCache([path])
    assert all(cache.get(f"k{i}") is not None for i in range(8))


def test_calls_are_numbered_in_the_order_they_were_made_not_finished(tmp_path: Path) -> None:
    from recmarket.agents.llm.adaptive import AdaptiveLimit
    from recmarket.agents.llm.api import ChatRequest, Reply
    from recmarket.agents.llm.client import ChatModel
    from recmarket.agents.llm.config import ModelConfig
    from recmarket.agents.llm.ledger import Ledger

    class FirstIsSlow:
        """Answers the first call it gets last."""

        def __init__(self) -> None:
            self.sent = 0

        async def generate(self, request: ChatRequest) -> Reply:
            self.sent += 1
            await asyncio.sleep(0.2 if self.sent == 1 else 0.0)
            return Reply(request.messages[-1]["content"], 1, 1)

        async def aclose(self) -> None:
            pass

    store = tmp_path / "run.sqlite"
    cache = CallCache([store])
    model = ChatModel(
        ModelConfig(name="m", base_url="http://fake/v1", structured="off"),
        FirstIsSlow(),
        cache,
        Ledger(SpendAccount(None, None)),
        AdaptiveLimit(4, adaptive=False),
    )

    async def both() -> None:
        slow = asyncio.create_task(model.complete("update", [{"role": "user", "content": "a"}], 1))
        await asyncio.sleep(0.05)
        await model.complete("update", [{"role": "user", "content": "b"}], 1)
        await slow

    asyncio.run(both())
    cache.close()
    with sqlite3.connect(store) as db:
        finished = [r for (r,) in db.execute("SELECT response FROM llm_calls ORDER BY rowid")]
        made = [r for (r,) in db.execute("SELECT response FROM llm_calls ORDER BY seq")]
    assert finished == ["b", "a"] and made == ["a", "b"]
    again = CallCache([store])  # a resumed run numbers on from the last call
    assert again.issue() == 2
    again.close()
