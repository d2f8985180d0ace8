"""The ``Embedder`` interface and its implementations.

``minilm-m2v`` (default) is a model2vec static model distilled from all-MiniLM-L6-v2 and
shipped inside the package: it needs only numpy and tokenizers at run time, no torch and no
network. ``bge`` is BAAI/bge-base-en-v1.5 through sentence-transformers, the paper's
retriever, available with the ``bge`` extra when its weights are on disk or in the local
Hugging Face cache.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np

from recmarket.embedding.settings import EmbedderConfig

BUNDLED_MODEL = Path(__file__).resolve().parent / "minilm_m2v"


class EmbedderUnavailable(RuntimeError):
    """The configured embedder cannot be loaded here; the message says what is missing."""


@runtime_checkable
class Embedder(Protocol):
    """A text embedder: what retrieval and the offline roles' judgement read texts through.
    Implementations must be deterministic for a fingerprint."""

    def __hash__(self) -> int:
        """Embedders key per-process caches (one similarity cache per embedder)."""
        ...

    @property
    def fingerprint(self) -> str:
        """Identifies the model exactly, for cache keys."""
        ...

    def encode(self, texts: list[str]) -> np.ndarray:
        """Unit-normalised float32 vectors of documents (item texts), one row per text."""
        ...

    def encode_queries(self, texts: list[str]) -> np.ndarray:
        """Vectors of retrieval queries (structured needs); some models want an instruction.
        An embedder whose queries are encoded as documents may say so with a class
        attribute ``queries_as_documents = True``, and a need's text is then encoded once
        for retrieval and judgement (``embedding.similarity``)."""
        ...


def _normalise(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms == 0, 1, norms)


class StaticEmbedder:
    """A model2vec static model: a token-embedding lookup and mean, fast on any CPU."""

    queries_as_documents = True  # encode_queries is encode: one vector serves both

    def __init__(self, path: Path = BUNDLED_MODEL) -> None:
        from model2vec import StaticModel

        if not (path / "model.safetensors").is_file():
            raise EmbedderUnavailable(f"{path}: no model2vec model (model.safetensors missing)")
        self._model = StaticModel.from_pretrained(str(path))
        digest = hashlib.sha256((path / "model.safetensors").read_bytes()).hexdigest()[:16]
        self._fingerprint = f"model2vec:{path.name}:{digest}"

    @property
    def fingerprint(self) -> str:
        return self._fingerprint

    def encode(self, texts: list[str]) -> np.ndarray:
        return _normalise(self._model.encode(texts, show_progress_bar=False))

    def encode_queries(self, texts: list[str]) -> np.ndarray:
        return self.encode(texts)


# BGE v1.5 retrieval: queries carry this instruction, passages do not (model card).
BGE_QUERY_INSTRUCTION = "Represent this sentence for searching relevant passages: "


class SentenceTransformerEmbedder:
    """BGE-base (or any sentence-transformers model) from local files only."""

    def __init__(self, name: str, query_instruction: str = "") -> None:
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:
            raise EmbedderUnavailable(
                "the bge embedder needs the 'bge' extra: pip install torch==2.13.0 && "
                "pip install 'recmarket[bge]'"
            ) from exc
        try:
            self._model = SentenceTransformer(name, device="cpu", local_files_only=True)
        except OSError as exc:
            raise EmbedderUnavailable(
                f"weights for {name!r} are not on this machine (looked in the local Hugging "
                "Face cache and at it as a path); download them once with network access or "
                "pass a local directory"
            ) from exc
        self._fingerprint = f"sentence-transformers:{name}"
        self._query_instruction = query_instruction

    @property
    def fingerprint(self) -> str:
        return self._fingerprint

    def encode(self, texts: list[str]) -> np.ndarray:
        return _normalise(self._model.encode(texts, batch_size=64, normalize_embeddings=True))

    def encode_queries(self, texts: list[str]) -> np.ndarray:
        return self.encode([self._query_instruction + t for t in texts])


def load_embedder(cfg: EmbedderConfig) -> Embedder:
    """The embedder a run's settings name: the bundled model2vec model (no torch), or BGE
    through sentence-transformers (the ``bge`` extra)."""
    if cfg.kind == "bge":
        instruction = BGE_QUERY_INSTRUCTION if "bge" in cfg.bge_model.lower() else ""
        return SentenceTransformerEmbedder(cfg.bge_model, instruction)
    return StaticEmbedder()
