"""Dense text embedders for retrieval: one small interface, two implementations."""

from recmarket.embedding.base import Embedder, EmbedderUnavailable, load_embedder

__all__ = ["Embedder", "EmbedderUnavailable", "load_embedder"]
