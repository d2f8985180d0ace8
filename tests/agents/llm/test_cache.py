"""The LLM call store and the spend account on damaged files: one line naming the file."""

import multiprocessing
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
    cache.put(f"k{worker}", "query", "m", "u", [], {}, worker, CachedCall("x", 1, 1, 0.1, 0))
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
