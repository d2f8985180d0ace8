"""Run configuration from a TOML or YAML file, overridden by command-line flags.

The file mirrors ``RunConfig`` (top-level keys plus ``[market]``, ``[episodes]``,
``[embedder]`` and ``[agents]`` tables). Unknown keys are rejected by the config models
themselves, so a typo never silently falls back to a default.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from recmarket.config import RunConfig


class ConfigError(ValueError):
    """A configuration file or flag value is invalid; the message says where and why."""


def read_config_file(path: Path) -> dict[str, Any]:
    """A TOML or YAML settings file as a table; every problem (unreadable, not UTF-8,
    malformed with its line, nested too deeply, not a table) is one ``ConfigError``
    naming the file."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read config file ({exc.strerror})") from exc
    except UnicodeDecodeError as exc:
        line = path.read_bytes()[: exc.start].count(b"\n") + 1
        raise ConfigError(f"{path}:{line}: not UTF-8 text (byte {exc.start})") from None
    try:
        if path.suffix.lower() == ".toml":
            data = tomllib.loads(text)
        elif path.suffix.lower() in (".yaml", ".yml"):
            data = yaml.safe_load(text) or {}
        else:
            raise ConfigError(f"{path}: config files must end in .toml, .yaml or .yml")
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from exc
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f":{mark.line + 1}" if mark is not None else ""
        raise ConfigError(f"{path}{where}: invalid YAML: {exc}") from exc
    except RecursionError:  # the parsers recurse once per level of arrays and tables
        raise ConfigError(f"{path}: nested too deeply to be a configuration") from None
    refuse_deep(data, str(path))
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a table of settings at the top level")
    return data


# Tables and arrays within each other that settings may nest: the deepest setting is 5 (an
# LLM model's extra request fields), and validation, hashing and merging recurse per level.
MAX_DEPTH = 32


def refuse_deep(value: Any, where: str) -> None:
    """``ConfigError`` naming ``where`` if ``value`` nests tables or arrays more than
    ``MAX_DEPTH`` deep: found without recursing, before anything that recurses meets it."""
    waiting = [(value, 0)]
    while waiting:
        item, depth = waiting.pop()
        if depth > MAX_DEPTH:
            raise ConfigError(
                f"{where}: nested more than {MAX_DEPTH} tables or arrays deep; no setting is"
            )
        if isinstance(item, dict):
            waiting += [(inner, depth + 1) for inner in item.values()]
        elif isinstance(item, list | tuple):
            waiting += [(inner, depth + 1) for inner in item]


def merge(base: dict[str, Any], overrides: dict[str, Any]) -> dict[str, Any]:
    """``overrides`` on top of ``base``, recursing into tables."""
    out = dict(base)
    for key, value in overrides.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merge(out[key], value)
        else:
            out[key] = value
    return out


def described(exc: ValidationError) -> str:
    """A settings error as one line: each problem after the setting it is about (never
    pydantic's dump of inputs and links)."""
    parts = []
    for e in exc.errors():
        where = ".".join(str(p) for p in e["loc"])
        message = e["msg"].removeprefix("Value error, ")
        parts.append(f"{where}: {message}" if where else message)
    return "; ".join(parts)


def build_config(
    path: Path | None, overrides: dict[str, Any], flags: dict[tuple[str, ...], str]
) -> RunConfig:
    """Validate file settings plus flag overrides; errors name the flag or the file key."""
    data = merge(read_config_file(path) if path else {}, overrides)
    try:
        return RunConfig.model_validate(data)
    except ValidationError as exc:
        problems = []
        for error in exc.errors():
            loc = tuple(str(p) for p in error["loc"])
            message = error["msg"].removeprefix("Value error, ")
            # an item of a list setting (loc ends in its index) is named by the list's flag
            named = next((loc[:i] for i in range(len(loc), 0, -1) if loc[:i] in flags), None)
            # a variant's parameter is checked with the variant, whose error names it below
            # its own location (market.reputation: ... params.rate: ...)
            named = named or next(
                (
                    path
                    for path in flags
                    if path[: len(loc)] == loc
                    and re.search(rf"(?:^|\s){re.escape('.'.join(path[len(loc) :]))}:", message)
                    and _given(overrides, path)
                ),
                None,
            )
            if named is not None and _given(overrides, named):
                where = flags[named]
            else:
                where = ".".join(loc) + (f" in {path}" if path else "")
            problems.append(f"{where}: {message}" if where else message)
        raise ConfigError("; ".join(problems)) from None


def _given(overrides: dict[str, Any], loc: tuple[str, ...]) -> bool:
    node: Any = overrides
    for part in loc:
        if not isinstance(node, dict) or part not in node:
            return False
        node = node[part]
    return True
