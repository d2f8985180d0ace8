"""The LLM flags, spelled and explained once for run, estimate, reproduce, validate and the
llm commands: which model answers, where it is, its key's variable, its prices and tier,
and how calls are played (live or batched, from the stores only, within a budget). They
become the ``[llm]`` settings a config file would give (``llm_overrides``); a command that
plays takes them whole as an ``LLMChoice`` (``with_llm``)."""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

import typer

from recmarket.agents.llm.config import BASE_URL_ENV, OPENAI_URL, LLMConfig, ModelConfig
from recmarket.cli.app import fail
from recmarket.cli.options import with_options
from recmarket.config_file import build_config

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
