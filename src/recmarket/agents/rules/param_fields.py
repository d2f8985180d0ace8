"""How a parameter of the offline model is declared: its default, meaning and source
(``param``), the frozen model every parameter table is, and the checks tables share."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from recmarket.profiles import PROFILE_NAMES

REAL = "the real samples"
LABELS = ("high", "mixed", "low")  # the updater's claim-reliability labels
FIRST = "first principles"
# Chosen on the fit half of the shared real slices' people (scripts/fit_user_model.py),
# each by the validity measure its mechanism answers for (docs/people.md).
PEOPLE = "fitted to real people"


def param(default: Any, meaning: str, source: str, **bounds: Any) -> Any:
    """A parameter's field: its default, what it means and where its value comes from (the
    real samples, a table of the paper, or first principles)."""
    return Field(default, description=meaning, json_schema_extra={"source": source}, **bounds)


class ParamTable(BaseModel):
    """One table of parameters (``[agents.ranker]``, ...): frozen, and no key beyond its own,
    so a misspelt parameter is an error rather than a default kept without a word."""

    model_config = ConfigDict(extra="forbid", frozen=True)


def profiles_known(values: dict[str, Any]) -> dict[str, Any]:
    """A per-profile table names profiles only: a misspelt one would be ignored, and the
    profile meant would keep its default without a word."""
    unknown = sorted(set(values) - set(PROFILE_NAMES))
    if unknown:
        raise ValueError(
            f"unknown profile {', '.join(map(repr, unknown))}; the profiles are "
            + ", ".join(PROFILE_NAMES)
        )
    return values


def ordered(low: tuple[str, float], high: tuple[str, float], strict: bool = False) -> None:
    """ValueError naming both settings unless ``low`` is below ``high`` (or equal, unless
    ``strict``): a scale or a pair of thresholds the wrong way round would not fail, it
    would quietly mean something else (or divide by zero)."""
    (low_name, a), (high_name, b) = low, high
    if a > b or (strict and a == b):
        relation = "below" if strict else "at most"
        raise ValueError(f"{low_name} ({a:g}) must be {relation} {high_name} ({b:g})")
