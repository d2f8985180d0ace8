"""Market structure settings, owned by the market layer; ``config`` composes them."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from recmarket.market.policies import assign_policies, check_composition
from recmarket.vocabulary import Mechanism, Policy


class MarketConfig(BaseModel):
    """Market structure (Section 4.1, Appendix A.1); defaults are the paper's."""

    model_config = ConfigDict(extra="forbid", frozen=True)

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
    reputation_mechanism: Mechanism = Field(
        "window",
        description="how records are weighed: the last W alike, all alike (beta), or "
        "discounted by age (decay)",
    )
    reputation_decay: float = Field(
        0.8,
        gt=0.0,
        lt=1.0,
        description="decay: a record's weight is this to the power of the number of newer records",
    )
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
