"""Which settings a run's hash leaves out while they are at their defaults.

A run directory resumes only under the configuration whose hash it stored. A setting added
after runs were stored would change every stored hash (it happened once), so such a setting
is marked where it is declared, ``noise: Annotated[str, ADDED_LATER] = ...``, and the hash
leaves it out at its default: old runs keep their directories, and a run that sets it gets
a hash of its own. The mark sits on the field, so nobody has to remember a list elsewhere.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel


class AddedLater:
    """The mark (pydantic keeps it in the field's metadata)."""

    def __repr__(self) -> str:
        return "ADDED_LATER"


ADDED_LATER = AddedLater()


def unset_later(model: BaseModel) -> dict[str, Any]:
    """The fields marked ADDED_LATER and at their defaults, in this model and the models
    it holds, as pydantic's ``exclude`` argument takes them."""
    found: dict[str, Any] = {}
    for name, info in type(model).model_fields.items():
        value = getattr(model, name)
        if any(m is ADDED_LATER for m in info.metadata):
            if value == info.default:
                found[name] = True
        elif isinstance(value, BaseModel) and (inner := unset_later(value)):
            found[name] = inner
    return found
