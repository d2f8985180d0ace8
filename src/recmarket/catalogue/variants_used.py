"""Which variants a run's settings use, read from the settings themselves.

Every settings field that names a variant says so in its type (``NameIn``), and a variant
with parameters is a ``VariantSetting``; ``variants_in`` walks validated settings through
their fields' types, into tuples, dicts, unions and nested models (an attack's
parameters name the policy it presents; a role backend's may name anything), and yields
each variant used once. A new kind of variant, or a new field that names one, is found
without an edit here, as inspect_ai builds a log's spec from its registry tags rather than
from a list.
"""

from __future__ import annotations

import functools
import json
import types
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel, TypeAdapter, ValidationError

from recmarket.catalogue.registry import NameIn, Registry, VariantSetting


@dataclass(frozen=True)
class Used:
    """One variant a run uses: its registry, name and parameters (as the settings give
    them: an empty table for a name given alone)."""

    registry: Registry[Any]
    name: str
    params: str = "{}"  # JSON, keys sorted, so that two uses compare by value

    @property
    def kind(self) -> str:
        """The variant's kind, as its registry names it."""
        return self.registry.kind


def variants_in(settings: BaseModel) -> tuple[Used, ...]:
    """Every variant ``settings`` use, nested ones included, each once, in the order the
    walk meets them."""
    return tuple(dict.fromkeys(_in_model(settings)))


def _in_model(model: BaseModel) -> Iterator[Used]:
    skip = ""
    if isinstance(model, VariantSetting):
        params = json.dumps(model.params, sort_keys=True, default=str)
        yield Used(model.REGISTRY, model.name, params)
        yield from _in_model(model.built())
        skip = model.KEY
    for name, info in type(model).model_fields.items():
        if name != skip:
            yield from _in_value(info.annotation, tuple(info.metadata), getattr(model, name))


def _in_value(annotation: Any, metadata: tuple[Any, ...], value: Any) -> Iterator[Used]:
    for mark in metadata:
        if isinstance(mark, NameIn):
            yield from (Used(mark.registry, name) for name in mark.names(value))
            return
    if isinstance(value, BaseModel):
        yield from _in_model(value)
        return
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is Annotated:
        yield from _in_value(args[0], (*annotation.__metadata__, *metadata), value)
    elif origin in (Union, types.UnionType):
        arm = next((a for a in args if _holds(a, value)), None)
        if arm is not None:
            yield from _in_value(arm, (), value)
    elif isinstance(value, dict):
        keys, values = args if len(args) == 2 else (Any, Any)
        for key, item in value.items():
            yield from _in_value(keys, (), key)
            yield from _in_value(values, (), item)
    elif isinstance(value, tuple | list | set | frozenset):
        element = args[0] if args else Any
        for item in value:
            yield from _in_value(element, (), item)


def _holds(arm: Any, value: Any) -> bool:
    """Whether a union's ``arm`` accepts ``value`` as it is: the arm a validated value
    came through (the first that accepts it, as a left-to-right union reads it)."""
    try:
        _adapter(arm).validate_python(value, strict=True)
    except (ValidationError, TypeError, ValueError):
        return False
    return True


@functools.cache
def _adapter(arm: Any) -> TypeAdapter[Any]:
    return TypeAdapter(arm)
