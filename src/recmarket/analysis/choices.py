"""A decision at its expectation: a row's parts averaged over the answers its decision could
have given, each weighted by its chance, where the run kept them (``RunConfig
.record_choices``; ``market.metrics.choice_alternatives`` writes them).

A surrogate's prediction of a unit is its mean over replays of the unit; each replay's
decision is one draw from a choice model whose chances the offline user knows exactly. The
expectation over that draw, given everything the episode played before it, has the same
mean as the draw and less spread, so a prediction made of it tracks what the surrogate
expects rather than how its dice fell. Every ``Metric``'s parts are sums over rows, so the
expected parts of a row are exactly the chance-weighted sum of the parts each answer gives.
Later episodes follow the drawn answer (under reputation the record it leaves), so this is
the expectation of each decision in the history the replay played, not of the whole
history's.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from typing import Any, Self

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from recmarket.analysis.bootstrap import Row
from recmarket.market.metrics import DECIDED

MOST_ANSWERS = 256  # a decision's answers: no purchase and one per shown product
SUM_SLACK = 1e-4  # the chances are stored to 6 decimals each


class Overlay(Mapping[str, Any]):
    """A row with some of its columns given other values, the row itself untouched."""

    __slots__ = ("_row", "_top")

    def __init__(self, top: dict[str, Any], row: Row) -> None:
        self._top, self._row = top, row

    def __getitem__(self, column: str) -> Any:
        return self._top[column] if column in self._top else self._row[column]

    def __iter__(self) -> Iterator[str]:
        return iter(dict.fromkeys([*self._row, *self._top]))

    def __len__(self) -> int:
        return sum(1 for _ in self)


class Alternatives(BaseModel):
    """The answers a decision could have given: each one's chance and the DECIDED columns
    the episode would then have had, one list entry per answer."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    chance: list[float] = Field(min_length=1, max_length=MOST_ANSWERS)
    target_purchased: list[bool]
    any_purchase: list[bool]
    no_purchase: list[bool]
    off_target_purchase: list[bool]
    purchased_policy: list[str | None]
    purchased_platform: list[str | None]
    regret: list[float | None]

    @model_validator(mode="after")
    def _one_entry_an_answer(self) -> Self:
        sizes = {len(getattr(self, name)) for name in type(self).model_fields}
        if len(sizes) != 1:
            raise ValueError("the columns do not give one entry to every answer")
        if not all(0.0 <= c <= 1.0 for c in self.chance):
            raise ValueError("a chance is outside [0, 1]")
        if not math.isclose(sum(self.chance), 1.0, abs_tol=SUM_SLACK):
            raise ValueError(f"the chances sum to {sum(self.chance):.6f}, not 1")
        if not all(r is None or math.isfinite(r) for r in self.regret):
            raise ValueError("a regret is not a finite number")
        return self

    def answers(self, row: Row) -> tuple[tuple[float, Row], ...]:
        """Each answer's chance (rescaled to sum to exactly 1) and ``row`` as that answer
        would have left it."""
        total = sum(self.chance)
        return tuple(
            (c / total, Overlay({name: getattr(self, name)[i] for name in DECIDED}, row))
            for i, c in enumerate(self.chance)
        )


def read_alternatives(body: str, where: str, shown: Collection[str] | None = None) -> Alternatives:
    """A stored decision's alternatives, validated, each bought from a platform in ``shown``
    (the episode's, where given); ``where`` names the store and episode in the one-line
    error a damaged or edited entry gets."""
    try:
        found = Alternatives.model_validate(json.loads(body))
    except ValueError as exc:  # a ValidationError is one
        problem = exc.errors()[0]["msg"] if isinstance(exc, ValidationError) else str(exc)
        raise ValueError(
            f"{where}: its decision's alternatives are unreadable ({problem})"
        ) from None
    unknown = sorted({p for p in found.purchased_platform if p is not None} - set(shown or ()))
    if shown is not None and unknown:
        raise ValueError(
            f"{where}: its decision's alternatives buy from {', '.join(unknown)}, which the "
            "episode did not show"
        )
    return found


def with_expectation(row: Row, alternatives: Alternatives) -> Row:
    """``row`` carrying its decision's answers (``expected`` reads them)."""
    return Overlay({"choices": alternatives.answers(row)}, row)


def expected(parts: Callable[[Row], Sequence[float]]) -> Callable[[Row], Sequence[float]]:
    """``parts`` at the decision's expectation where a row carries its answers
    (``with_expectation``), as drawn elsewhere."""

    def at_expectation(row: Row) -> Sequence[float]:
        answers: Any = row.get("choices")
        if not answers:
            return parts(row)
        each = [chance * np.asarray(parts(answer), dtype=float) for chance, answer in answers]
        return np.sum(each, axis=0)

    return at_expectation
