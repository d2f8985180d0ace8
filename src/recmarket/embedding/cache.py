"""On-disk cache of item-universe embeddings, keyed by model and data.

Embedding a real domain's universe with BGE takes minutes; every run, cell and rerun needs
the same matrix. The key hashes the embedder's fingerprint with the exact item texts, so a
changed model or changed data can never be served a stale matrix. Each file also holds the
SHA-256 of its vectors: a file that is truncated, flipped or otherwise fails the check is
rebuilt (with a warning) rather than served or allowed to stop the domain.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import zipfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from recmarket.embedding.base import Embedder

log = logging.getLogger(__name__)


def default_cache_dir() -> Path:
    """Where recmarket keeps what it computes once (embeddings, prepared domains, the demo
    market, the LLM call store): ``$RECMARKET_CACHE``, else
    ``$XDG_CACHE_HOME/recmarket``, else ``~/.cache/recmarket``."""
    root = os.environ.get("RECMARKET_CACHE") or os.environ.get("XDG_CACHE_HOME")
    return Path(root) / "recmarket" if root else Path.home() / ".cache" / "recmarket"


def cache_key(embedder: Embedder, texts: list[str]) -> str:
    """The key of a list of texts' vectors: a digest of the embedder's fingerprint and the
    texts in order."""
    digest = hashlib.sha256(embedder.fingerprint.encode())
    for text in texts:
        digest.update(text.encode())
        digest.update(b"\0")
    return digest.hexdigest()[:32]


def _digest(vectors: np.ndarray) -> np.ndarray:
    return np.frombuffer(hashlib.sha256(np.ascontiguousarray(vectors).tobytes()).digest(), np.uint8)


def _load_checked(path: Path, rows: int) -> np.ndarray | None:
    """The cached vectors if the file is whole and passes its checksum; else None."""
    try:
        with np.load(path, allow_pickle=False) as stored:
            vectors, digest = stored["vectors"], stored["sha256"]
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as exc:
        log.warning("embedding cache %s unreadable (%s); rebuilding it", path, exc)
        return None
    if (
        vectors.ndim != 2
        or vectors.shape[0] != rows
        or not np.array_equal(digest, _digest(vectors))
    ):
        log.warning("embedding cache %s fails its checksum; rebuilding it", path)
        return None
    return vectors


@contextlib.contextmanager
def _alone(lock: Path) -> Iterator[None]:
    """Hold an exclusive lock on the (empty) file ``lock`` while the body runs: the workers of
    one reproduce asking for the same uncached matrix at once embed it once, the others
    wait and read it (16 workers on a cold cache embedded every domain 16 times). Where
    locks are unavailable (no fcntl, a read-only cache) the body runs unguarded."""
    try:
        import fcntl

        lock.parent.mkdir(parents=True, exist_ok=True)
        handle = lock.open("a")
    except (ImportError, OSError):
        yield
        return
    with handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def embed_items(embedder: Embedder, texts: list[str], cache_dir: Path | None) -> np.ndarray:
    """The unit-normalised vectors of ``texts``, from the cache when present and sound."""
    if cache_dir is None:
        return embedder.encode(texts)
    key = cache_key(embedder, texts)
    path = cache_dir / "embeddings" / f"{key}.npz"
    if path.is_file():
        cached = _load_checked(path, len(texts))
        if cached is not None:
            return cached
    with _alone(cache_dir / "locks" / f"{key}.lock"):
        if path.is_file():  # made while this process waited for the lock
            cached = _load_checked(path, len(texts))
            if cached is not None:
                return cached
        return _embed_and_keep(embedder, texts, path)


def _embed_and_keep(embedder: Embedder, texts: list[str], path: Path) -> np.ndarray:
    vectors = embedder.encode(texts)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tmp.open("wb") as fh:
            np.savez(fh, vectors=vectors, sha256=_digest(vectors))
        tmp.replace(path)  # atomic: a concurrent reader sees the old state or the whole file
    except OSError as exc:  # a read-only or full cache must not cost the computed vectors
        with contextlib.suppress(OSError):
            tmp.unlink()
        log.warning("embedding cache not written (%s); continuing without it", exc)
    return vectors
