"""A reputation mechanism with a parameter: a record's weight halves every ``half_life``
newer records of the same platform, and a record is forgotten once it weighs less than a
thousandth. With ``half_life = 1`` it is the built-in decay at rate 0.5; a longer half-life
remembers more, as a market that trusts old evidence would."""

from __future__ import annotations

import math
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field

from recmarket.catalogue.mechanisms import FORGOTTEN, ReputationMechanism


class HalfLifeParams(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    half_life: float = Field(3.0, gt=0.0, le=1000.0, description="newer records per halving")


@dataclass(frozen=True)
class HalfLife(ReputationMechanism):
    Params: type[BaseModel] = HalfLifeParams

    def kept(self, window: int, params: BaseModel) -> int | None:
        assert isinstance(params, HalfLifeParams)
        return math.ceil(params.half_life * math.log2(1 / FORGOTTEN))

    def weights(self, count: int, params: BaseModel) -> tuple[float, ...] | None:
        assert isinstance(params, HalfLifeParams)
        return tuple(0.5 ** ((count - 1 - i) / params.half_life) for i in range(count))


HALF_LIFE = HalfLife(
    "half-life", "a record counts by its weight, which halves every few newer records"
)
