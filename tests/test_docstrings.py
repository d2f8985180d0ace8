"""Every public class, function and method of the package says what it is for.

A definition is public when neither it nor its class starts with an underscore. A method
is documented by its own docstring, by the one it overrides (as ``inspect.getdoc`` reads
it), or by the documented interface (a ``Protocol`` of the package) whose members its class
provides: an offline ranker's ``__call__`` is documented where the role's contract is.
Dataclasses' generated signatures do not count as docstrings.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil
from collections.abc import Iterator
from typing import Any, Protocol

import recmarket


def modules() -> Iterator[Any]:
    for found in pkgutil.walk_packages(recmarket.__path__, "recmarket."):
        if not found.name.endswith("__main__"):  # importing it runs the command line
            yield importlib.import_module(found.name)


def own_definitions(module: Any) -> Iterator[tuple[str, Any]]:
    for name, obj in list(vars(module).items()):
        is_definition = inspect.isclass(obj) or inspect.isfunction(obj)
        if is_definition and not name.startswith("_") and obj.__module__ == module.__name__:
            yield name, obj


def methods(cls: type) -> Iterator[tuple[str, Any]]:
    for name, member in list(vars(cls).items()):
        if name.startswith("_"):
            continue
        function = member.fget if isinstance(member, property) else member
        if isinstance(function, staticmethod | classmethod):
            function = function.__func__
        if inspect.isfunction(function):
            yield name, function


def interfaces() -> list[type]:
    """The package's protocols: the interfaces a class documents itself through."""
    return [
        obj
        for module in modules()
        for _, obj in own_definitions(module)
        if inspect.isclass(obj) and Protocol in obj.__mro__[1:] and obj.__doc__
    ]


def provides(cls: type, member: str) -> bool:
    """Whether ``cls`` has ``member``: as an attribute, or as a field its instances get."""
    return hasattr(cls, member) or any(
        member in getattr(base, "__annotations__", {}) for base in cls.__mro__
    )


def documented_by(cls: type, name: str, protocols: list[type]) -> bool:
    if any(getattr(getattr(base, name, None), "__doc__", None) for base in cls.__mro__[1:-1]):
        return True
    for protocol in protocols:
        members = {m for m, _ in methods(protocol)} | set(getattr(protocol, "__annotations__", {}))
        if name in members and all(provides(cls, m) for m in members):
            return bool(getattr(getattr(protocol, name, None), "__doc__", None))
    return False


def undocumented() -> list[str]:
    protocols = interfaces()
    missing = []
    for module in modules():
        for name, obj in own_definitions(module):
            doc = obj.__doc__ or ""
            generated = dataclasses.is_dataclass(obj) and doc.startswith(f"{name}(")
            if not doc.strip() or generated:
                missing.append(f"{module.__name__}.{name}")
            if not inspect.isclass(obj):
                continue
            for method, function in methods(obj):
                if not function.__doc__ and not documented_by(obj, method, protocols):
                    missing.append(f"{module.__name__}.{name}.{method}")
    return missing


def test_every_public_definition_has_a_docstring() -> None:
    missing = undocumented()
    assert not missing, f"{len(missing)} public definitions without a docstring: {missing}"
