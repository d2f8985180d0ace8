"""How a study plays its cells, apart from what decides their episodes: built once where a
user gives them (the command line, ``recmarket.api``) and handed down typed, so a misspelt
option is refused where it is written rather than dropped on the way (``budgt=5.0`` once
played its cells with no budget and no error)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, kw_only=True)
class PlayOptions:
    """Options of play that stay out of a run's identity: where calls and caches are kept,
    whether calls may reach the network, what they may spend, and which calls a store
    keeps."""

    cache_dir: Path | None = None  # embeddings and prepared domains (default: the user's)
    llm_cache: Path | None = None  # the shared LLM call store (default: in cache_dir)
    replay: bool = False  # serve every LLM call from the stores; never use the network
    budget: float | None = None  # USD the LLM calls may spend, counted across reruns
    # every offline episode's role calls kept, not only the first of each domain's (a run
    # whose calls will all be read, as calibration reads them)
    keep_calls: bool = False

    def __post_init__(self) -> None:
        if self.budget is not None and not self.budget >= 0:
            raise ValueError(f"budget {self.budget!r}: give a number of USD, 0 or more")


DEFAULT_PLAY = PlayOptions()  # the user's caches, the network allowed, no budget
