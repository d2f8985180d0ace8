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


REAL_SAMPLE_TESTS = {"ran": 0, "skipped": 0}


@pytest.fixture
def shared_data() -> Path:
    """The real samples, found beside the repository root (``../shared``)."""
    if not SHARED_DATA.is_dir():
        REAL_SAMPLE_TESTS["skipped"] += 1
        pytest.skip(
            f"real Amazon Reviews'23 samples not found at {SHARED_DATA} "
            "(../shared beside the repository root)"
        )
    REAL_SAMPLE_TESTS["ran"] += 1
    return SHARED_DATA


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Say how many tests ran on the real samples, so a clone without them is visible."""
    ran, skipped = REAL_SAMPLE_TESTS["ran"], REAL_SAMPLE_TESTS["skipped"]
    if ran or skipped:
        where = f"from {SHARED_DATA}" if ran else f"not found at {SHARED_DATA}"
        terminalreporter.write_line(
            f"real Amazon Reviews'23 samples: {ran} tests ran, {skipped} skipped ({where})"
        )
