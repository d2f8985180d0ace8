"""Numbers as a user wrote them: a number field takes a number, not what pydantic would make
of something else.

Settings come from TOML, YAML and JSON, where a number is written as one. Pydantic's lax
mode reads ``"0.5"`` as 0.5, ``true`` as 1 and ``2.0`` as the count 2; each is a slip (a
quoted number, a flag in the wrong field, a decimal where a count belongs) that a run
would otherwise carry out under a hash that hides it. ``unnumbered`` walks what was given
beside what the model made of it and names the first such value by its place.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError
from pydantic_core import InitErrorDetails, PydanticCustomError

Place = tuple[str | int, ...]


@dataclass(frozen=True)
class Misread:
    """A value written as something other than the number it was read as, and where."""

    place: Place
    given: Any
    problem: str  # what is wrong, e.g. "'3' is a string, not a number (write it unquoted)"

    def __str__(self) -> str:
        where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in self.place)
        return f"{where.lstrip('.')}: {self.problem}"

    def refusal(self, title: str) -> ValidationError:
        """The error a model's validator raises: the problem at its place, so that an
        error reader names the setting as it names any other."""
        error = PydanticCustomError("number_written_otherwise", self.problem)
        details = InitErrorDetails(type=error, loc=self.place, input=self.given)
        return ValidationError.from_exception_data(title, [details])


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def unnumbered(given: Any, made: Any, place: Place = ()) -> Misread | None:
    """The first value of ``given`` that the model (``made``) read as a number but was
    written as a string or a boolean, or read as a whole number but written as a decimal;
    None when there is none."""
    if isinstance(given, Mapping):
        for key, value in given.items():
            if isinstance(made, BaseModel):
                inner = getattr(made, str(key), _ABSENT)
            elif isinstance(made, Mapping):
                inner = made.get(key, _ABSENT)
            else:
                return None
            if inner is not _ABSENT and (found := unnumbered(value, inner, (*place, str(key)))):
                return found
        return None
    if isinstance(given, list | tuple) and isinstance(made, list | tuple):
        if len(given) == len(made):
            for i, (value, inner) in enumerate(zip(given, made, strict=True)):
                if found := unnumbered(value, inner, (*place, i)):
                    return found
        return None
    problem = _problem(given, made)
    return Misread(place, given, problem) if problem else None


def _problem(given: Any, made: Any) -> str:
    if not _is_number(made):
        return ""
    if isinstance(given, bool):
        return f"{str(given).lower()} is a boolean, not a number"
    if isinstance(given, str):
        return f"{given!r} is a string, not a number (write it unquoted)"
    if isinstance(given, float) and isinstance(made, int):
        return f"{given} is a decimal, not a whole number (write {made})"
    return ""


_ABSENT = object()
