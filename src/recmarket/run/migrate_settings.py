"""Settings files of an older form, rewritten once in the current form (``recmarket
migrate``): every ``market`` table (a run's ``[market]``, a spec's ``[base.market]``, ...)
whose older fields ``market.older_forms.read_older`` reads is written as it reads them.

TOML is edited in place with tomlkit, so comments, order and layout stay; YAML is written
anew. Either way the file as it was is kept beside it (``FILE.orig``). What cannot be
rewritten field by field (an axis over an older field, ``"market.learning_rule" = [...]``)
is left and said, naming the file and the key.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator, MutableMapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tomlkit
import yaml

from recmarket.files import write_text_whole
from recmarket.market.older_forms import BEHAVIOURS, DEFAULTS, read_older

OLDER_FIELDS = frozenset({*DEFAULTS, BEHAVIOURS})
SUFFIXES = {".toml": "toml", ".yaml": "yaml", ".yml": "yaml"}
LARGEST = 1_000_000  # bytes: a settings file is small; anything larger is not one


@dataclass
class SettingsMigrated:
    """Files rewritten, and what was left, in words."""

    rewritten: list[str] = field(default_factory=list)
    left: list[str] = field(default_factory=list)


def migrate_settings(root: Path) -> SettingsMigrated:
    """Every settings file under ``root`` holding an older form, rewritten in the current."""
    done = SettingsMigrated()
    for path in sorted(p for p in root.rglob("*") if p.suffix in SUFFIXES and p.is_file()):
        if any(part.startswith(".") for part in path.relative_to(root).parts):
            continue  # a hidden folder's (.git, .venv): not the user's settings
        if path.stat().st_size > LARGEST:
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        if not any(name in text for name in OLDER_FIELDS):
            continue
        try:
            document = _read(path, text)
        except (tomlkit.exceptions.ParseError, yaml.YAMLError) as exc:
            done.left.append(f"{path}: not read ({str(exc).splitlines()[0]})")
            continue
        tables, axes = _rewrite(document)
        done.left += [f"{path}: {key} names an older field; write it by hand" for key in axes]
        if not tables:
            continue
        original = path.with_name(path.name + ".orig")
        if not original.exists():
            write_text_whole(original, text)
        write_text_whole(path, _written(path, document))
        said = ", ".join(tables)
        done.rewritten.append(f"{path}: {said} rewritten in the current form ({original.name})")
    return done


def _read(path: Path, text: str) -> Any:
    if SUFFIXES[path.suffix] == "toml":
        return tomlkit.parse(text)
    return yaml.safe_load(text)


def _written(path: Path, document: Any) -> str:
    if SUFFIXES[path.suffix] == "toml":
        return tomlkit.dumps(document)
    return yaml.safe_dump(document, sort_keys=False)


def _rewrite(document: Any) -> tuple[list[str], list[str]]:
    """Rewrite every ``market`` table in place: the tables rewritten and the keys (dotted
    ones, as in a spec's axes) that name an older field and were left."""
    rewritten, left = [], []
    for where, table in _tables(document, ()):
        dotted = [k for k in table if "." in str(k) and str(k).split(".")[-1] in OLDER_FIELDS]
        left += [".".join((*where, str(k))) for k in dotted]
        if where[-1:] != ("market",) or not OLDER_FIELDS & set(table):
            continue
        before = _plain(table)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            after = read_older(before)
        for key in before.keys() - after.keys():
            del table[key]
        for key, value in after.items():
            if key not in before or before[key] != value:
                table[key] = value
        rewritten.append(".".join(where))
    return rewritten, left


def _tables(node: Any, where: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], Any]]:
    """Every table of a document with its path, parents first."""
    if isinstance(node, MutableMapping):
        yield where, node
        for key, value in list(node.items()):
            yield from _tables(value, (*where, str(key)))
    elif isinstance(node, list):
        for value in node:
            yield from _tables(value, where)


def _plain(node: Any) -> Any:
    """A tomlkit (or YAML) value as plain dicts, lists and scalars."""
    if isinstance(node, MutableMapping):
        return {str(k): _plain(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_plain(v) for v in node]
    return getattr(node, "unwrap", lambda: node)()
