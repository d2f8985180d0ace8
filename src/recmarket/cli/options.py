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

from recmarket.agents.llm.config import BASE_URL_ENV, OPENAI_URL, LLMConfig, ModelConfig
from recmarket.catalogue.mechanisms import DecayParams
from recmarket.catalogue.registry import NameIn, one_name
from recmarket.cli.app import fail
from recmarket.config import RunConfig
from recmarket.config_file import build_config


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


# The LLM options, spelled and explained once for run, estimate, reproduce and llm check.
_MODEL = ModelConfig.model_fields
Backend = Annotated[
    str | None,
    typer.Option("--backend", help="offline (default) or llm: one model for every role"),
]
LlmModel = Annotated[str | None, typer.Option("--llm-model", help="model name")]
LlmBaseUrl = Annotated[
    str | None,
    typer.Option(
        "--llm-base-url",
        help=f"OpenAI-compatible base URL (default: ${BASE_URL_ENV} where set, else {OPENAI_URL})",
    ),
]
LlmKeyEnv = Annotated[
    str | None,
    typer.Option(
        "--llm-api-key-env",
        help="NAME of the environment variable holding the key "
        f"(default: {_MODEL['api_key_env'].default})",
    ),
]
InputPrice = Annotated[
    float | None,
    typer.Option("--llm-input-price", min=0, help=f"{_MODEL['input_price'].description}"),
]
OutputPrice = Annotated[
    float | None,
    typer.Option("--llm-output-price", min=0, help=f"{_MODEL['output_price'].description}"),
]
ServiceTier = Annotated[
    str | None,
    typer.Option(
        "--llm-service-tier",
        help="the provider tier role calls ask for: auto, default, flex (about half price, "
        "may queue or answer busy), or any name the provider takes",
    ),
]
LlmMode = Annotated[
    Literal["live", "batch"] | None,
    typer.Option(
        "--llm-mode",
        help="live (default), or batch: NoRep and Platform-Centric cells' calls as batch "
        "jobs, stage by stage, at the batch price",
    ),
]
LlmCache = Annotated[
    Path | None,
    typer.Option("--llm-cache", help="shared LLM call store (default: in the cache directory)"),
]
Replay = Annotated[
    bool,
    typer.Option("--replay", help="serve every LLM call from the stores; never use the network"),
]
Budget = Annotated[
    float | None,
    typer.Option(
        "--budget",
        min=0,
        help="USD the LLM calls may spend, counted across reruns; calls reserve their "
        "worst case first, so it is never passed",
    ),
]


def llm_overrides(
    backend: str | None,
    model: str | None,
    base_url: str | None,
    key_env: str | None,
    prices: tuple[float | None, float | None] = (None, None),
    service_tier: str | None = None,
    mode: str | None = None,
) -> dict[str, Any]:
    """--backend llm with --llm-*: one model for every role (the settings they override)."""
    if backend is None:
        for flag, value in (
            ("--llm-model", model),
            ("--llm-service-tier", service_tier),
            ("--llm-mode", mode),
        ):
            if value is not None:
                fail(f"{flag} needs --backend llm")
        return {}
    if backend == "offline":
        return {"llm": None}
    if backend != "llm":
        fail(f"--backend: {backend!r} is not offline or llm")
    table: dict[str, Any] = {"mode": mode} if mode is not None else {}
    if model is None:
        if service_tier is not None:
            fail(
                "--llm-service-tier sets the tier of --llm-model's model; for a config "
                "file's models, set service_tier under [llm.models.NAME]"
            )
        return {"llm": table} if table else {}  # the models come from the config file
    spec: dict[str, Any] = {"name": model}
    if service_tier is not None:
        spec["service_tier"] = service_tier
    if base_url:
        spec["base_url"] = base_url
    if key_env:
        spec["api_key_env"] = key_env
    for field_name, price in zip(("input_price", "output_price"), prices, strict=True):
        if price is not None:
            spec[field_name] = price
    return {"llm": {"models": {"main": spec}, "roles": {"default": "main"}, **table}}


def configured_llm(
    config: Path | None,
    backend: str | None,
    model: str | None,
    base_url: str | None,
    key_env: str | None,
    verb: str,
) -> LLMConfig:
    """The models the LLM commands (check, audit) act on: the config file's [llm] table,
    overridden by the --llm-* flags; with neither, one line saying there is nothing to
    ``verb``."""
    cfg = build_config(config, llm_overrides(backend or "llm", model, base_url, key_env), {})
    if cfg.llm is None or not cfg.llm.models:
        fail(f"nothing to {verb}: give --llm-model or a config file with an [llm] table")
    return cfg.llm


@dataclass(frozen=True)
class LLMChoice:
    """What the LLM flags chose: the settings they override, and whether --backend llm
    was asked for (then a model must come from them or from the config file)."""

    settings: dict[str, Any]
    required: bool


def _llm_choice(**values: Any) -> LLMChoice:
    settings = llm_overrides(
        values["backend"],
        values["llm_model"],
        values["llm_base_url"],
        values["llm_api_key_env"],
        (values["llm_input_price"], values["llm_output_price"]),
        values["llm_service_tier"],
        values["llm_mode"],
    )
    return LLMChoice(settings, values["backend"] == "llm")


def _parameter(name: str, annotation: Any) -> inspect.Parameter:
    return inspect.Parameter(
        name, inspect.Parameter.KEYWORD_ONLY, default=None, annotation=annotation
    )


# One model for every role, from the command line: run, estimate and reproduce.
with_llm = with_options(
    "llm",
    [
        _parameter("backend", Backend),
        _parameter("llm_model", LlmModel),
        _parameter("llm_base_url", LlmBaseUrl),
        _parameter("llm_api_key_env", LlmKeyEnv),
        _parameter("llm_input_price", InputPrice),
        _parameter("llm_output_price", OutputPrice),
        _parameter("llm_service_tier", ServiceTier),
        _parameter("llm_mode", LlmMode),
    ],
    _llm_choice,
)
