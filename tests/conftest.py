"""Shared fixtures: tiny domains on disk, the shared real samples, and a cache directory of
each test's own."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.fixtures import SHARED_DATA, write_jsonl


@pytest.fixture(scope="session", autouse=True)
def session_cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Fixtures shared by a module's tests cache here, never in the user's cache directory."""
    with cache_in(tmp_path_factory.mktemp("session-cache")) as folder:
        yield folder


@pytest.fixture(autouse=True)
def no_endpoint_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """A model with no base URL goes where $OPENAI_BASE_URL says, as the OpenAI SDK's do: a
    tester's own setting must not move the tests' models (a test that reads it sets it)."""
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


@pytest.fixture(autouse=True)
def own_cache_dir(
    tmp_path_factory: pytest.TempPathFactory, session_cache_dir: Path
) -> Iterator[Path]:
    """Each test's runs cache in a folder of their own, but for the item embeddings, which
    depend on nothing but the texts and the embedder and are shared to save their time.

    A shared LLM call store would let one test's stored calls answer another's: a fake
    endpoint's address is a loopback port, which the next fake may be given again, so a test
    that counts the requests its fake received would find none (as CI once did)."""
    folder = tmp_path_factory.mktemp("cache")
    shared = session_cache_dir / "recmarket" / "embeddings"
    shared.mkdir(parents=True, exist_ok=True)
    (folder / "recmarket").mkdir()
    (folder / "recmarket" / "embeddings").symlink_to(shared, target_is_directory=True)
    with cache_in(folder):
        yield folder


@contextmanager
def cache_in(folder: Path) -> Iterator[Path]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("RECMARKET_CACHE", str(folder))
        yield folder


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
