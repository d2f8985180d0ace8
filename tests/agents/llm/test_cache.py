"""The LLM call store and the spend account on damaged files: one line naming the file."""

from pathlib import Path

import pytest

from recmarket.agents.llm.cache import CallCache
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
