"""Typed, validated settings.

Everything a user can set is validated here, at the edge, with messages that name the field
and say what would be accepted; code further in trusts these objects.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator

from recmarket.agents.llm.config import OPERATIONAL, LLMConfig
from recmarket.agents.rules.params import OfflineParams
from recmarket.embedding.settings import EmbedderConfig
from recmarket.market.policies import Policy, assign_policies, check_composition


class _Config(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class EpisodeConfig(_Config):
    """Episode construction and request sampling (Section 4.1, Appendix B.1)."""

    requests: int = Field(1200, ge=1, description="R: requests sampled per domain")
    users_per_profile: int = Field(2, ge=1, description="S: simulated users per profile")
    min_interactions: int = Field(5, ge=2, description="users need at least this many")
    max_interactions: int = Field(20, ge=2, description="keep at most the most recent")
    target_min_rating: float = Field(4.0, ge=1.0, le=5.0, description="target rating floor")

    @model_validator(mode="after")
    def _window_holds_minimum(self) -> EpisodeConfig:
        if self.max_interactions < self.min_interactions:
            raise ValueError(
                f"max_interactions ({self.max_interactions}) must be at least "
                f"min_interactions ({self.min_interactions})"
            )
        return self


class MarketConfig(_Config):
    """Market structure (Section 4.1, Appendix A.1); defaults are the paper's."""

    n_platforms: int = Field(6, ge=1, le=1000, description="N: competing platforms")
    shortlist_k: int = Field(3, ge=1, description="K: shortlist capacity")
    platform_centric_j: int | None = Field(
        None, ge=1, description="J: items shown by the entered platform (default J = K)"
    )
    catalog_cap: int = Field(30_000, ge=1, description="C: regular items per catalog")
    rho: float = Field(0.1, ge=0.0, le=1.0, description="copy probability to other platforms")
    p_hit: float = Field(0.8, ge=0.0, le=1.0, description="controlled target inclusion")
    top_l: int = Field(5, ge=1, description="L: retrieval shortlist per platform")
    tau: float = Field(
        0.1,
        ge=1e-3,
        le=1e3,
        allow_inf_nan=False,
        description="Gumbel temperature (below 0.001 the draw is an argmax, above 1000 uniform)",
    )
    memory_window: int = Field(10, ge=1, description="W: reputation records per platform")
    composition: str | tuple[str, ...] = Field(
        "equal", description="named composition or one policy per platform"
    )
    rotation: int = Field(0, ge=0, description="cyclic inventory rotation (R1 = 1, R2 = 2)")
    long_term_weight: float = Field(
        0.25, ge=0.0, le=1.0, description="weight of the long-term need in the search vector"
    )

    @property
    def j(self) -> int:
        return self.platform_centric_j if self.platform_centric_j is not None else self.shortlist_k

    @field_validator("shortlist_k")
    @classmethod
    def _k_within_n(cls, k: int, info: ValidationInfo) -> int:
        n = info.data.get("n_platforms")
        if n is not None and k > n:
            raise ValueError(
                f"K={k} cannot exceed the number of platforms N={n}: each platform submits "
                "one candidate"
            )
        return k

    @field_validator("composition")
    @classmethod
    def _known_composition(
        cls, value: str | tuple[str, ...], info: ValidationInfo
    ) -> str | tuple[str, ...]:
        n = info.data.get("n_platforms")
        check_composition(value)
        if n is not None:
            assign_policies(value, n)
        return value

    @property
    def policies(self) -> tuple[Policy, ...]:
        """The policy attached to each platform id P1..PN."""
        return assign_policies(self.composition, self.n_platforms)


DEFAULT_DOMAINS = ("Musical_Instruments", "Video_Games", "Sports_and_Outdoors")


class RunConfig(_Config):
    """Everything that determines a run's records. Its hash guards a run directory: a
    restart resumes only with an identical configuration."""

    data: Path | None = Field(None, description="data directory; None: the bundled demo")
    domains: tuple[str, ...] = Field(DEFAULT_DOMAINS, min_length=1)
    condition: Literal["platform-centric", "no-rep", "local-rep"] = "local-rep"
    reputation_scope: Literal["local", "style", "shared"] = "local"
    seed: int = Field(
        42, ge=0, lt=2**63, description="the run's seed (every stream derives from it)"
    )
    market: MarketConfig = MarketConfig()
    episodes: EpisodeConfig = EpisodeConfig()
    embedder: EmbedderConfig = EmbedderConfig()
    agents: OfflineParams = OfflineParams()
    llm: LLMConfig | None = Field(None, description="models per role; None: all offline")

    def digest(self) -> str:
        """Hash of everything that determines the records (not how calls are made)."""
        exclude: dict[str, Any] = {}
        if self.llm is not None:
            exclude = {"llm": {"models": {name: set(OPERATIONAL) for name in self.llm.models}}}
        return hashlib.sha256(self.model_dump_json(exclude=exclude).encode()).hexdigest()
