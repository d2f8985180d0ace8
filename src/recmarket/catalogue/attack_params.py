"""The parameters of the built-in attacks (``recmarket.catalogue.attacks``), each a model
that forbids unknown fields: what a spec's ``params = {...}`` may set, and their bounds."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from recmarket.catalogue.payloads import PayloadFamilyName
from recmarket.catalogue.policies import PolicyName


class AttackParams(BaseModel):
    """The parameters every attack takes: the presentation it uses."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    policy: PolicyName | None = Field(
        None, description="the presentation it uses (default: its composition's)"
    )


class BaitParams(BaseModel):
    """Bait-and-switch: honest until a round or a number of rewarded proposals, then the
    other policy; with ``oscillate``, honest again when caught and back when recovered."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    honest: PolicyName = "strict"
    then: PolicyName = "exaggeration"
    switch_round: int | None = Field(None, ge=0, description="switch from this round on")
    switch_after: int | None = Field(None, ge=0, description="switch after this many rewards")
    oscillate: bool = False
    window: int = Field(24, ge=1, le=1_000_000, description="proposals its reward is averaged over")
    below: float = Field(0.1, ge=0.0, le=1.0, description="reward that counts as caught")


class WhitewashParams(AttackParams):
    """Whitewashing: when its recent reward falls below a level, the seat re-enters under a
    fresh identity (with no records), up to a number of times, sitting out some rounds
    each time."""

    policy: PolicyName | None = "exaggeration"
    window: int = Field(24, ge=1, le=1_000_000, description="proposals its reward is averaged over")
    below: float = Field(0.1, ge=0.0, le=1.0, description="reward that makes it re-enter")
    reentries: int = Field(5, ge=0, le=1000, description="fresh identities it may take")
    absent_rounds: int = Field(0, ge=0, description="rounds it sits out at each re-entry")


class SybilParams(AttackParams):
    """Sybils: the owner runs several seats of the same conduct."""

    seats: int = Field(3, ge=1, le=50, description="seats the owner runs (1: no Sybils)")


class InjectParams(BaseModel):
    """Injection: the seat's explanations carry a payload aimed at the user agent."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    family: PayloadFamilyName | None = Field(
        "strong", description="the payload family (None: no payload, the seat as it is)"
    )


class ForgeParams(AttackParams):
    """Forgery: after a share of episodes the seat writes a fake-user High record for itself
    and, optionally, a Low one for a rival."""

    share: float = Field(0.3, ge=0.0, le=1.0, description="share of episodes it forges after")
    rival: str | None = Field(None, description="a seat it damns with a fake Low record")


class FloodParams(AttackParams):
    """Flooding: each time it forges, many fake High records for itself."""

    share: float = Field(0.3, ge=0.0, le=1.0, description="share of episodes it forges after")
    records: int = Field(5, ge=0, le=100, description="fake High records each time it forges")


class CollusionParams(SybilParams):
    """Collusion: Sybil seats that forge High records for each other and, optionally, a Low
    one for a common rival."""

    share: float = Field(0.3, ge=0.0, le=1.0, description="share of episodes it forges after")
    rival: str | None = Field(None, description="a seat they damn with a fake Low record")


class CamouflageParams(BaseModel):
    """Camouflage: honest but for a share of proposals, each chosen by a keyed draw."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    honest: PolicyName = "strict"
    then: PolicyName = "exaggeration"
    share: float = Field(
        0.25, ge=0.0, le=1.0, description="share of proposals presented as ``then``"
    )
