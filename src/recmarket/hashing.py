"""Which settings a run's hash leaves out: one vocabulary of marks, set where each field is
declared, so nobody has to remember a list elsewhere.

- ``OPERATIONAL``: how calls are made, not what they answer (a concurrency limit, a price, a
  timeout, live or batched). Always left out: a run resumes whatever they are.
- ``ADDED_LATER``: a setting added after runs were stored. A run directory resumes only under
  the configuration whose hash it stored, and such a setting would change every stored hash
  (it happened once), so it is left out while at its default: old runs keep their
  directories, and a run that sets it gets a hash of its own.

``noise: Annotated[str, ADDED_LATER] = ...``; ``timeout: Annotated[float, OPERATIONAL]``.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel


class Mark:
    """A mark on a settings field (pydantic keeps it in the field's metadata)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


ADDED_LATER = Mark("ADDED_LATER")
OPERATIONAL = Mark("OPERATIONAL")


def marked(model: type[BaseModel], mark: Mark) -> set[str]:
    """The names of the model's fields that carry ``mark``."""
    return {n for n, info in model.model_fields.items() if any(m is mark for m in info.metadata)}


def left_out(model: BaseModel) -> dict[str, Any]:
    """What a run's hash leaves out of ``model`` and the models it holds (in fields and in
    tables of them, such as ``llm.models``), as pydantic's ``exclude`` argument takes it:
    every OPERATIONAL field, and every ADDED_LATER one at its default."""
    found: dict[str, Any] = {}
    for name, info in type(model).model_fields.items():
        value = getattr(model, name)
        if any(m is OPERATIONAL for m in info.metadata):
            found[name] = True
        elif any(m is ADDED_LATER for m in info.metadata):
            if value == info.default:
                found[name] = True
        elif isinstance(value, BaseModel) and (inner := left_out(value)):
            found[name] = inner
        elif isinstance(value, dict):
            held = {k: left_out(v) for k, v in value.items() if isinstance(v, BaseModel)}
            if any(held.values()):
                found[name] = {k: v for k, v in held.items() if v}
    return found
