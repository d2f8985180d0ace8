"""Shared fixtures: tiny domains on disk, and the shared real samples."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest

from tests.fixtures import SHARED_DATA, write_jsonl


@pytest.fixture
def make_domain(tmp_path: Path) -> Callable[..., Path]:
    """Write a domain ``name`` from review and meta records into a fresh directory."""

    def make(
        reviews: Iterable[dict[str, Any] | str],
        metas: Iterable[dict[str, Any] | str],
        name: str = "Tiny",
        gz: bool = False,
    ) -> Path:
        directory = tmp_path / "data"
        directory.mkdir(exist_ok=True)
        suffix = ".jsonl.gz" if gz else ".jsonl"
        write_jsonl(directory / f"{name}{suffix}", reviews, gz=gz)
        write_jsonl(directory / f"meta_{name}{suffix}", metas, gz=gz)
        return directory

    return make


@pytest.fixture
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.skip(
            f"real Amazon Reviews'23 samples not found at {SHARED_DATA} "
            "(../shared is absent outside the development checkout)"
        )
    return SHARED_DATA
