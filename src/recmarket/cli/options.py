"""Command-line options derived from the settings models: one source for every setting.

Each flag names a path in ``RunConfig``; its type, bounds, help and default come from that
field of the settings model that owns it, so a default changes in one place and every
command that sets it (``run``, ``estimate``, ``build``, ``access-check``) spells it the
same way. A flag the user does not give is None: the config file or the model's default
applies. ``with_settings`` adds a command's flags to its signature and hands the command
the nested overrides of the flags that were given.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import UnionType
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import annotated_types
import typer
from pydantic import BaseModel
from pydantic.fields import FieldInfo

from recmarket.catalogue.mechanisms import DecayParams
from recmarket.catalogue.registry import NameIn, one_name
from recmarket.config import RunConfig


@dataclass(frozen=True)
class SettingFlag:
    """A command-line flag that sets one field of the run's settings, by its path in
    ``RunConfig``."""

    flag: str  # "--n"
    path: tuple[str, ...]  # ("market", "n_platforms")
    help: str = ""  # said before the field's own description, where it needs context
    # the model whose field the path's last part names, where the path runs through a
    # variant's parameters (a table the settings themselves do not type)
    within: type[BaseModel] | None = None

    @property
    def parameter(self) -> str:
        """The flag's name as the command's parameter."""
        return self.flag.removeprefix("--").replace("-", "_")


MARKET = (
    SettingFlag("--n", ("market", "n_platforms")),
    SettingFlag("--k", ("market", "shortlist_k")),
    SettingFlag("--j", ("market", "platform_centric_j")),
    SettingFlag("--rho", ("market", "rho")),
    SettingFlag("--catalog-cap", ("market", "catalog_cap")),
    SettingFlag("--p-hit", ("market", "p_hit")),
    SettingFlag("--top-l", ("market", "top_l")),
    SettingFlag("--tau", ("market", "tau")),
    SettingFlag("--window", ("market", "memory_window")),
    SettingFlag(
        "--reputation-mechanism",
        ("market", "reputation", "mechanism"),
        "how records are weighed: window (the last W alike), beta (all alike), decay "
        "(discounted by age), oracle, or an installed one;",
    ),
    SettingFlag(
        "--reputation-decay",
        ("market", "reputation", "params", "rate"),
        "with --reputation-mechanism decay:",
        DecayParams,
    ),
    SettingFlag(
        "--policies",
        ("market", "composition"),
        "a named composition (equal, strict-exaggeration, ...), counts such as "
        "strict=3,exaggeration=3, or one policy per platform, comma-separated:",
    ),
    SettingFlag("--rotation", ("market", "rotation")),
    SettingFlag("--platform-strategy", ("market", "platform_strategy")),
    SettingFlag(
        "--learning-rule",
        ("market", "learning", "rule"),
        "adaptive platforms' learning rule:",
    ),
    SettingFlag("--reward", ("market", "reward")),
    SettingFlag("--reward-top1-weight", ("market", "reward_top1_weight")),
    SettingFlag("--learning-period", ("market", "learning_period")),
    SettingFlag("--claim-intensity", ("market", "claim_intensities"), "repeatable;"),
    SettingFlag("--entrants", ("market", "entrants")),
)
EPISODES = (
    SettingFlag("--requests", ("episodes", "requests")),
    SettingFlag("--users-per-profile", ("episodes", "users_per_profile")),
)
RUN = (
    SettingFlag("--data", ("data",)),
    SettingFlag("--domain", ("domains",), "repeatable;"),
    SettingFlag("--condition", ("condition",)),
    SettingFlag("--reputation-scope", ("reputation_scope",)),
    SettingFlag("--seed", ("seed",)),
    *MARKET,
    *EPISODES,
    SettingFlag("--embedder", ("embedder", "kind")),
)
FLAG_OF_PATH = {f.path: f.flag for f in RUN}


def field_of(path: tuple[str, ...], within: type[BaseModel] | None = None) -> FieldInfo:
    """The settings field at ``path``, through nested models (its description becomes the
    flag's help); ``within``: the model whose field the last part names."""
    if within is not None:
        return within.model_fields[path[-1]]
    model: type[BaseModel] = RunConfig
    for part in path[:-1]:
        annotation = model.model_fields[part].annotation
        model = next(a for a in (annotation, *get_args(annotation)) if _is_model(a))
    return model.model_fields[path[-1]]


def _is_model(annotation: Any) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, BaseModel)


def _cli_type(annotation: Any) -> tuple[Any, str]:
    """The type the command line parses for a field, and the choices to list in its help."""
    if get_origin(annotation) is Literal:
        return str, ", ".join(map(str, get_args(annotation)))
    if get_origin(annotation) in (Union, UnionType):
        members = [a for a in get_args(annotation) if a is not type(None)]
        if str in members:
            return str, ""  # a name, or a form the model parses (a composition)
        return _cli_type(members[0])
    if get_origin(annotation) is tuple:
        item = get_args(annotation)[0]
        if _is_model(item):  # the model parses its short form (entrants: strict@200,...)
            return str, ""
        return list[item], ""  # type: ignore[valid-type]  # a type built at run time for typer
    return annotation, ""


def _registered(info: FieldInfo) -> str:
    """The names a field that names one registered variant takes (built-in and installed),
    listed; empty for any other field (a composition names several, in its own form)."""
    named = next((m for m in info.metadata if isinstance(m, NameIn)), None)
    if named is None or named.names is not one_name:
        return ""
    return ", ".join(named.registry.names())


def _default(info: FieldInfo) -> str:
    value = info.default
    if isinstance(value, tuple):
        return ", ".join(map(str, value)) or "none"
    return "none" if value is None else str(value)


def _bounds(info: FieldInfo) -> str:
    low = next((r.ge for r in info.metadata if isinstance(r, annotated_types.Ge)), None)
    high = next((r.le for r in info.metadata if isinstance(r, annotated_types.Le)), None)
    if low is not None and high is not None:
        return f"{low} to {high}"
    return f"at least {low}" if low is not None else ""


def option(flag: SettingFlag) -> inspect.Parameter:
    """The flag as a command parameter. Bounds are stated in the help and checked by the
    settings model, whose one-line error names the flag (one validation, one message)."""
    info = field_of(flag.path, flag.within)
    kind, choices = _cli_type(info.annotation)
    choices = choices or _registered(info)
    words = [flag.help, info.description or ""]
    limits = "; ".join(
        x
        for x in (
            f"one of {choices}" if choices else "",
            _bounds(info),
            f"default: {_default(info)}",
        )
        if x
    )
    help_text = " ".join(w for w in words if w) + f" ({limits})"
    annotation = Annotated[kind | None, typer.Option(flag.flag, help=help_text)]  # type: ignore[valid-type]
    return inspect.Parameter(
        flag.parameter, inspect.Parameter.KEYWORD_ONLY, default=None, annotation=annotation
    )


def overrides(given: dict[SettingFlag, Any]) -> dict[str, Any]:
    """The nested settings of the flags that were given."""
    tree: dict[str, Any] = {}
    for flag, value in given.items():
        if value is None or value == []:
            continue
        *parents, leaf = flag.path
        node = tree
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = tuple(value) if isinstance(value, list) else value
    return tree


def with_options(
    name: str, parameters: Sequence[inspect.Parameter], combine: Callable[..., Any]
) -> Callable[[Callable[..., Any]], Any]:
    """Add ``parameters`` to a command; it receives ``name``: ``combine`` of their values."""

    def decorate(command: Callable[..., Any]) -> Callable[..., Any]:
        """``command`` with the parameters added to its signature."""
        signature = inspect.signature(command, eval_str=True)
        own = [p for p in signature.parameters.values() if p.name != name]

        @functools.wraps(command)
        def wrapper(**kwargs: Any) -> Any:
            values = {p.name: kwargs.pop(p.name) for p in parameters}
            return command(**{name: combine(**values)}, **kwargs)

        wrapper.__signature__ = signature.replace(parameters=[*own, *parameters])  # type: ignore[attr-defined]
        return wrapper

    return decorate


def with_settings(flags: Sequence[SettingFlag]) -> Callable[[Callable[..., Any]], Any]:
    """Add settings ``flags`` to a command; it receives ``settings``, what they override."""

    def combine(**values: Any) -> dict[str, Any]:
        return overrides({f: values[f.parameter] for f in flags})

    return with_options("settings", [option(f) for f in flags], combine)


ConfigPath = Annotated[
    Path | None, typer.Option("--config", help="TOML or YAML settings; flags override it")
]
