"""A reputation mechanism that discounts a record by its age in rounds, not by how many
records came after it: a platform that sells rarely keeps its old records' weight as long
as one that sells often, which a count-based decay does not give it.

A record written after round ``w`` and read in round ``now`` weighs
``0.5 ** ((now - w) / half_life_rounds)``; the newcomer penalty's records are read as new.
The memory keeps a platform's last ``keep`` records. Every value is a parameter: the
half-life says how fast a market forgets, and no value here is fitted to any result.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field

from recmarket.api import RecordFacts, ReputationMechanism

FLOOR = 1e-6  # a weight stays in (0, 1] however old its record


class RecordAgeParams(BaseModel):
    """How fast a record's weight halves, and how many records are kept."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    half_life_rounds: float = Field(12.0, gt=0.0, description="rounds until a record counts half")
    keep: int = Field(40, ge=1, le=10_000, description="records kept per platform")


@dataclass(frozen=True)
class RecordAge(ReputationMechanism):
    """Records weighed by their age in rounds."""

    Params: type[BaseModel] = RecordAgeParams

    def kept(self, window: int, params: BaseModel) -> int | None:
        """The last ``keep`` records."""
        assert isinstance(params, RecordAgeParams)
        return params.keep

    def weigh(
        self, records: Sequence[RecordFacts], now: int, params: BaseModel
    ) -> tuple[float, ...] | None:
        """Each record's weight by the rounds since it was written."""
        assert isinstance(params, RecordAgeParams)
        return tuple(
            max(FLOOR, 0.5 ** ((now - r.written) / params.half_life_rounds)) for r in records
        )


RECORD_AGE = RecordAge(
    "record-age", "a record counts less the more rounds ago it was written; its weight is shown"
)
