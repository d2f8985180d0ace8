"""The embedder's settings, owned by the embedding layer; ``config`` composes them."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class EmbedderConfig(BaseModel):
    """Which dense retriever embeds needs and items."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Literal["minilm-m2v", "bge"] = Field(
        "minilm-m2v", description="dense retriever: the bundled static model, or BGE-base"
    )
    bge_model: str = Field(
        "BAAI/bge-base-en-v1.5", description="sentence-transformers name or local path"
    )
