"""Named variants that other packages can add to: a registry per kind of mechanism.

A variant (a presentation policy, later a reputation mechanism or a platform strategy) is
an object registered under its name; code looks it up by that name and never branches on
it. Built-in variants register when their module is imported. Other installed packages add
theirs through an entry-point group (``[project.entry-points."recmarket.policies"]`` in
their pyproject.toml, ``hedged = "my_package:HEDGED"``), read the first time a name is not
found among the registered ones or the whole list is asked for, as inspect_ai discovers
its model providers. An unknown name fails with the known ones; a plugin that cannot be
loaded, or that is not the kind of object its group holds, fails naming its entry point.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from importlib.metadata import EntryPoint, entry_points
from typing import Generic, TypeVar

T = TypeVar("T")


class UnknownName(ValueError):
    """A name no registered variant (built in or installed) answers to."""


class PluginError(RuntimeError):
    """An installed package's entry point that does not give a usable variant."""


class Registry(Generic[T]):
    """The variants of one kind by name: built-ins registered on import, installed ones
    found through ``group`` the first time they are asked for."""

    def __init__(self, kind: str, group: str, cls: type[T], name_of: Callable[[T], str]) -> None:
        self.kind, self.group, self.cls, self._name_of = kind, group, cls, name_of
        self._items: dict[str, T] = {}
        self._discovered = False

    def register(self, item: T) -> T:
        """Add a variant under its own name. A name already taken by another variant is an
        error: a plugin cannot silently replace a built-in (its runs would keep the name
        and change behaviour)."""
        if not isinstance(item, self.cls):
            raise TypeError(f"a {self.kind} must be a {self.cls.__name__}, got {item!r}")
        name = self._name_of(item)
        held = self._items.get(name)
        if held is not None and held != item:
            raise ValueError(f"{self.kind} {name!r} is registered already")
        self._items[name] = item
        return item

    def get(self, name: str) -> T:
        if name not in self._items:
            self.discover()
        try:
            return self._items[name]
        except KeyError:
            known = ", ".join(self.names()) or f"none (a package adds some under {self.group})"
            raise UnknownName(f"unknown {self.kind} name {name!r}; known: {known}") from None

    def known(self, name: str) -> str:
        """``name`` if a variant answers to it, else ``UnknownName``: the validator of a
        setting or contract field that names a variant (``AfterValidator(REG.known)``)."""
        self.get(name)
        return name

    def __contains__(self, name: object) -> bool:
        if isinstance(name, str) and name not in self._items:
            self.discover()
        return name in self._items

    def names(self) -> tuple[str, ...]:
        """Every name, built-in ones first, then installed ones in the order found."""
        self.discover()
        return tuple(self._items)

    def __iter__(self) -> Iterator[T]:
        return iter(self._items[name] for name in self.names())

    def discover(self) -> None:
        """Register what installed packages offer under this registry's entry-point group
        (once per process)."""
        if self._discovered:
            return
        self._discovered = True
        for point in sorted(entry_points(group=self.group), key=lambda p: p.name):
            item = self._load(point)
            if self._name_of(item) != point.name:
                raise PluginError(
                    f"entry point {point.name!r} in group {self.group!r} ({point.value}) gives "
                    f"the {self.kind} {self._name_of(item)!r}; the two names must agree"
                )
            if point.name in self._items and self._items[point.name] != item:
                raise PluginError(
                    f"entry point {point.name!r} in group {self.group!r} ({point.value}) "
                    f"names a {self.kind} that is registered already"
                )
            self.register(item)

    def _load(self, point: EntryPoint) -> T:
        try:
            item = point.load()
        except Exception as error:  # a broken plugin: say which, whatever it raised
            raise PluginError(
                f"cannot load entry point {point.name!r} in group {self.group!r} "
                f"({point.value}): {type(error).__name__}: {error}"
            ) from error
        if not isinstance(item, self.cls):
            raise PluginError(
                f"entry point {point.name!r} in group {self.group!r} ({point.value}) is not "
                f"a {self.cls.__name__}"
            )
        return item
