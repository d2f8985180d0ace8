"""On-disk cache of item-universe embeddings, keyed by model and data.

Embedding a real domain's universe with BGE takes minutes; every run, cell and rerun needs
the same matrix. The key hashes the embedder's fingerprint with the exact item texts, so a
changed model or changed data can never be served a stale matrix.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
from pathlib import Path

import numpy as np

from recmarket.embedding.base import Embedder

log = logging.getLogger(__name__)


def default_cache_dir() -> Path:
    root = os.environ.get("RECMARKET_CACHE") or os.environ.get("XDG_CACHE_HOME")
    return Path(root) / "recmarket" if root else Path.home() / ".cache" / "recmarket"


def cache_key(embedder: Embedder, texts: list[str]) -> str:
    digest = hashlib.sha256(embedder.fingerprint.encode())
    for text in texts:
        digest.update(text.encode())
        digest.update(b"\0")
    return digest.hexdigest()[:32]


def embed_items(embedder: Embedder, texts: list[str], cache_dir: Path | None) -> np.ndarray:
    """The unit-normalised vectors of ``texts``, from the cache when present."""
    if cache_dir is None:
        return embedder.encode(texts)
    path = cache_dir / "embeddings" / f"{cache_key(embedder, texts)}.npy"
    if path.is_file():
        vectors = np.load(path)
        if vectors.shape[0] == len(texts):
            return vectors
    vectors = embedder.encode(texts)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tmp.open("wb") as fh:
            np.save(fh, vectors)
        tmp.replace(path)  # atomic: a concurrent reader sees the old state or the whole file
    except OSError as exc:  # a read-only or full cache must not cost the computed vectors
        with contextlib.suppress(OSError):
            tmp.unlink()
        log.warning("embedding cache not written (%s); continuing without it", exc)
    return vectors
