"""Episode construction settings, owned by the data layer; ``config`` composes them."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, model_validator


class EpisodeConfig(BaseModel):
    """Episode construction and request sampling (Section 4.1, Appendix B.1)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

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
