"""Named variants that other packages can add to: a registry per kind of mechanism.

A variant (a presentation policy, a reputation mechanism, a learning rule, a platform
strategy, a role backend) is an object registered under its name; code looks it up by that
name and never branches on it. Built-in variants register when their module is imported.
Other installed packages add theirs through an entry-point group
(``[project.entry-points."recmarket.policies"]`` in their pyproject.toml, ``hedged =
"my_package:HEDGED"``), read the first time a name is not found among the registered ones or
the whole list is asked for, as inspect_ai discovers its model providers. An unknown name
fails with the known ones. A plugin that cannot be loaded, or that is not the kind of object
its group holds, is set aside with its error: the others still load, and only naming it
fails, in one line naming its entry point (a broken package must not take every other
variant, nor a typo's list of known names, down with it).

A settings field that names a variant says so in its type, ``Annotated[str,
NameIn(POLICIES)]``: the annotation validates the name and tells the run's provenance which
registry it names, so what a run records of its variants is read from its settings
(``variants_in``), never from a list of fields kept by hand.

A variant takes parameters through its own pydantic model, declared the same way by every
kind: a ``Params: type[BaseModel]`` field of the variant's frozen dataclass (``NoParams``
where it takes none; a subclass sets its own default). The model forbids unknown fields, so
a misspelt parameter is an error, not a default; ``register`` refuses a variant whose model
does not. One settings form then serves every kind: a name and a table of parameters
(``VariantSetting``). ``Registry.params`` validates the table against the variant's model and
names the variant in any error. ``Registry.origin`` says where a variant's code comes from:
None for recmarket's own, else its distribution, version and a digest of its source files,
which a run records so that a resume under edited plugin code is refused.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from importlib.metadata import EntryPoint, entry_points
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    GetCoreSchemaHandler,
    PrivateAttr,
    ValidationError,
    model_validator,
)
from pydantic_core import core_schema

from recmarket.catalogue.origins import Origin, module_of, owning_distribution, plugin_digest
from recmarket.deprecation import warn_older
from recmarket.numbers_given import unnumbered


class Variant(Protocol):
    """What a variant of any kind has: the model of its parameters (a frozen field)."""

    @property
    def Params(self) -> type[BaseModel]:
        """The pydantic model of the variant's parameters (``NoParams`` for none)."""
        ...


T = TypeVar("T", bound=Variant)


class NoParams(BaseModel):
    """The parameters of a variant that takes none: an empty table, nothing else."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class UnknownName(ValueError):
    """A name no registered variant (built in or installed) answers to."""


class PluginError(RuntimeError):
    """An installed package's entry point that does not give a usable variant."""


class _Squatter(PluginError):
    """An entry point that names a variant registered already as another object."""


class Registry(Generic[T]):
    """The variants of one kind by name: built-ins registered on import, installed ones
    found through ``group`` the first time they are asked for."""

    def __init__(
        self,
        kind: str,
        group: str,
        cls: type[T],
        name_of: Callable[[T], str],
        probe: Callable[[T, BaseModel], None] | None = None,
        aliases: tuple[str, ...] = (),
    ) -> None:
        self.kind, self.group, self.cls, self._name_of = kind, group, cls, name_of
        self.probe, self.aliases = probe, aliases  # aliases: deprecated names of the group
        self._items: dict[str, T] = {}
        self._points: dict[str, EntryPoint] = {}
        self._broken: dict[str, str] = {}  # an entry point's name -> why it gave no variant
        self._checked: set[str] = set()
        self._discovered = False
        # how a kind whose variants combine builds one from a name no variant holds (the
        # attacks' "sybil+camouflage"); None where none does. A built one is registered.
        self.compose: Callable[[str], T | None] | None = None

    def register(self, item: T) -> T:
        """Add a variant under its own name. A name already taken by another variant is an
        error: a plugin cannot silently replace a built-in (its runs would keep the name
        and change behaviour)."""
        if not isinstance(item, self.cls):
            raise TypeError(f"a {self.kind} must be a {self.cls.__name__}, got {item!r}")
        name = self._name_of(item)
        if problem := params_problem(item):
            raise TypeError(f"{self.kind} {name!r}: {problem}")
        held = self._items.get(name)
        if held is not None and held != item:
            raise ValueError(f"{self.kind} {name!r} is registered already")
        self._items[name] = item
        return item

    def get(self, name: str) -> T:
        """The variant called ``name``; ``PluginError`` if an installed package offers it but
        it could not be loaded, else ``UnknownName`` listing the known names."""
        if name not in self._items:
            self.discover()
        composed = self.compose(name) if name not in self._items and self.compose else None
        if composed is not None:
            self.register(composed)
        if name in self._items:  # a built-in wins over an entry point squatting its name
            return self._items[name]
        if name in self._broken:
            raise PluginError(self._broken[name])
        known = ", ".join(self.names()) or f"none (a package adds some under {self.group})"
        broken = ", ".join(map(repr, self._broken))
        unloaded = f"; installed but not loadable: {broken}" if broken else ""
        raise UnknownName(f"unknown {self.kind} name {name!r}; known: {known}{unloaded}")

    def checked(self, name: str) -> str:
        """``known``, and the variant passes its probe at its default parameters (once per
        process): the validator of a setting that names a variant without parameters."""
        if name not in self._checked:
            self.params(name, {})
            self._checked.add(name)
        return name

    def known(self, name: str) -> str:
        """``name`` if a variant answers to it, else ``UnknownName``: the validator of a
        setting or contract field that names a variant (``AfterValidator(REG.known)``)."""
        self.get(name)
        return name

    def __contains__(self, name: object) -> bool:
        if isinstance(name, str) and name not in self._items:
            self.discover()
        return name in self._items

    def params(self, name: str, given: Mapping[str, Any]) -> BaseModel:
        """The variant's parameters, validated by its own model (``Params``, or none) and
        checked by a probe call with them; every failure names the variant."""
        item = self.get(name)
        model = item.Params
        try:
            params = model.model_validate(dict(given))
        except ValidationError as error:
            problems = "; ".join(
                f"params.{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in error.errors()
            )
            raise ValueError(f"{self.kind} {name!r}: {problems}") from None
        if problem := _unnumbered(given, params):
            raise ValueError(f"{self.kind} {name!r}: {problem}")
        if self.probe is not None:
            try:
                self.probe(item, params)
            except Exception as error:
                if module_of(item).startswith("recmarket."):  # a built-in: the parameters
                    raise ValueError(
                        f"{self.kind} {name!r}: these parameters cannot be used ({error})"
                    ) from None
                raise PluginError(  # a plugin's contract broken: say whose
                    f"{self.kind} {name!r}{self._where(name)} fails its check: {error}"
                ) from None
        return params

    def origin(self, name: str) -> Origin | None:
        """None for a variant of recmarket's own; else its distribution, version and
        source digest."""
        item = self.get(name)
        point = self._points.get(name)
        module = point.module if point is not None else module_of(item)
        top = module.split(".")[0]
        if top == "recmarket":
            return None
        dist = getattr(point, "dist", None) if point is not None else None
        if dist is None:
            dist = owning_distribution(module)
        distribution = dist.metadata["Name"] if dist is not None else top
        found = dist.version if dist is not None else "unknown"
        try:
            return Origin(distribution, found, plugin_digest(module, dist))
        except OSError as error:
            raise PluginError(
                f"{self.kind} {name!r} from {distribution}: cannot read {error.filename} "
                f"({error.strerror}), so its code cannot be recorded; fix its permissions"
            ) from None

    def _where(self, name: str) -> str:
        point = self._points.get(name)
        return f" (entry point {point.value} in group {point.group!r})" if point else ""

    def names(self) -> tuple[str, ...]:
        """Every name, built-in ones first, then installed ones in the order found."""
        self.discover()
        return tuple(self._items)

    def __iter__(self) -> Iterator[T]:
        return iter(self._items[name] for name in self.names())

    def discover(self) -> None:
        """Register what installed packages offer under this registry's entry-point group
        (once per process); an entry point that gives no usable variant is set aside with
        its error, for ``get`` to raise when it is named."""
        if self._discovered:
            return
        self._discovered = True
        found = [p for group in (self.group, *self.aliases) for p in entry_points(group=group)]
        for point in sorted(found, key=lambda p: p.name):
            if point.group != self.group:
                warn_older(
                    f"entry point {point.name!r} ({point.value}) is declared in the group "
                    f"{point.group!r}, the older name of {self.group!r}; declare it there"
                )
            try:
                self.register(self._usable(point))
            except _Squatter:
                continue  # the built-in of that name is the one named; the entry point unused
            except PluginError as error:
                self._broken[point.name] = str(error)
            else:
                self._points[point.name] = point

    def _usable(self, point: EntryPoint) -> T:
        """The variant an entry point gives, or ``PluginError`` naming the entry point."""
        where = f"entry point {point.name!r} in group {self.group!r} ({point.value})"
        try:
            item = point.load()
        except Exception as error:  # a broken plugin: say which, whatever it raised
            raise PluginError(f"cannot load {where}: {type(error).__name__}: {error}") from error
        if not isinstance(item, self.cls):
            raise PluginError(f"{where} is not a {self.cls.__name__}")
        if problem := params_problem(item):
            raise PluginError(f"{where}: {problem}")
        if self._name_of(item) != point.name:
            raise PluginError(
                f"{where} gives the {self.kind} {self._name_of(item)!r}; the two names must agree"
            )
        if point.name in self._items and self._items[point.name] != item:
            raise _Squatter(f"{where} names a {self.kind} that is registered already")
        return item


def _unnumbered(given: Mapping[str, Any], params: BaseModel) -> str:
    """What a variant's model let through that is no number of the field's kind (empty when
    nothing is): a value that is not finite (NaN, inf: a run cannot store it, and it means
    nothing), or a boolean, string or decimal the model read as a number or count
    (``numbers_given``)."""
    for key, value in given.items():
        if bad := next(_non_finite(value), None):
            return f"params.{key}: {bad} is not a finite number"
    found = unnumbered(given, params, ("params",))
    return "" if found is None else str(found)


def _non_finite(value: Any) -> Iterator[float]:
    """The non-finite floats in a value, its tables and lists included."""
    if isinstance(value, float) and not math.isfinite(value):
        yield value
    elif isinstance(value, Mapping):
        for inner in value.values():
            yield from _non_finite(inner)
    elif isinstance(value, list | tuple):
        for inner in value:
            yield from _non_finite(inner)


def params_problem(item: object) -> str:
    """What is wrong with a variant's ``Params`` (empty when nothing is): it must be a
    pydantic model that forbids unknown fields."""
    model = getattr(item, "Params", None)
    if not (isinstance(model, type) and issubclass(model, BaseModel)):
        return f"its Params must be a pydantic model (NoParams where it takes none), not {model!r}"
    if model.model_config.get("extra") != "forbid":
        return (
            f"its Params model {model.__name__} must forbid unknown fields "
            '(model_config = ConfigDict(extra="forbid")), or a misspelt parameter is ignored'
        )
    return ""


def one_name(value: object) -> Iterable[str]:
    """The names a plain name field holds: itself (none when unset)."""
    return (value,) if isinstance(value, str) else ()


@dataclass(frozen=True, eq=False)
class NameIn:
    """The type of a settings field that names variants of ``registry``:
    ``Annotated[str, NameIn(POLICIES, probed=True)]``. It validates the name where the
    settings are read (``probed``: the variant also passes its probe at its defaults) and
    tells the run's provenance which registry the field names. ``names`` reads the names
    out of a field that holds them in another form (a composition's policies)."""

    registry: Registry[Any]
    probed: bool = False
    names: Callable[[Any], Iterable[str]] = one_name

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        check = self.registry.checked if self.probed else self.registry.known

        def valid(value: Any) -> Any:
            for name in self.names(value):
                check(name)
            return value

        return core_schema.no_info_after_validator_function(valid, handler(source))


class VariantSetting(BaseModel):
    """A variant as settings name it, one form for every kind: the kind's key and a table
    of parameters (``[market.reputation] mechanism = "decay"``, ``params = { rate = 0.8 }``).
    The parameters are checked against the variant's own model where the settings are
    validated and enter the run's hash with the name. A kind subclasses it with its
    ``REGISTRY``, ``KEY`` and the key's field."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    REGISTRY: ClassVar[Registry[Any]]
    KEY: ClassVar[str]

    params: dict[str, Any] = Field(default_factory=dict, description="the variant's parameters")
    _built: BaseModel = PrivateAttr()

    @property
    def name(self) -> str:
        """The variant's name, whatever the kind calls its key."""
        return str(getattr(self, self.KEY))

    @model_validator(mode="after")
    def _params_fit(self) -> VariantSetting:
        self._built = self.REGISTRY.params(self.name, self.params)
        return self

    def built(self) -> BaseModel:
        """The validated parameters, as the variant's own model (validated and probed once,
        when the setting was read: seats, forgers and measures ask for them often)."""
        return self._built
