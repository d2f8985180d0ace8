"""Experiment specs: a named set of treatment cells over the same requests.

A spec file (TOML) holds a name, a description, the default episodes per domain and cell,
optional domains, a ``[base]`` table of RunConfig settings every cell shares, and
``[[cells]]``, each a name plus RunConfig overrides (``requests`` may override the
episodes). Users copy a file, edit it, and pass the path wherever a name is accepted.

A cell's run directory is keyed by its configuration hash, so cells that two experiments
share (the equal NoRep market of the opening and the accountability experiment, say) run
once, and a rerun skips every finished cell.
"""

from __future__ import annotations

import tomllib
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from recmarket.config import RunConfig
from recmarket.config_file import ConfigError, merge


class CellSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    requests: int | None = Field(None, ge=1, description="episodes per domain, if not the spec's")
    settings: dict[str, Any] = Field(default_factory=dict, description="RunConfig overrides")


class ExperimentSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    description: str
    figure: str = ""
    requests: int = Field(ge=1, description="episodes per domain and cell (Table 1 rounds)")
    domains: tuple[str, ...] | None = None
    base: dict[str, Any] = Field(default_factory=dict)
    cells: tuple[CellSpec, ...] = Field(min_length=1)

    def configs(
        self, scale: float = 1.0, overrides: dict[str, Any] | None = None
    ) -> list[tuple[str, RunConfig]]:
        """(cell name, validated RunConfig) for every cell, episodes scaled by ``scale``."""
        out = []
        for cell in self.cells:
            requests = max(12, round((cell.requests or self.requests) * scale))
            data = merge(merge(self.base, cell.settings), overrides or {})
            data = merge(data, {"episodes": {"requests": requests}})
            if self.domains is not None:
                data.setdefault("domains", list(self.domains))
            try:
                out.append((cell.name, RunConfig.model_validate(data)))
            except ValidationError as exc:
                raise ConfigError(f"experiment {self.name}, cell {cell.name}: {exc}") from None
        return out


def _builtin_dir() -> Any:
    return resources.files("recmarket.experiments").joinpath("specs")


def builtin_names() -> list[str]:
    return sorted(
        p.name.removesuffix(".toml") for p in _builtin_dir().iterdir() if p.name.endswith(".toml")
    )


def load_spec(name_or_path: str) -> ExperimentSpec:
    """A built-in experiment by name, or a spec file by path."""
    path = Path(name_or_path)
    if path.suffix == ".toml" and path.is_file():
        text, where = path.read_text(), str(path)
    elif name_or_path in builtin_names():
        text = _builtin_dir().joinpath(f"{name_or_path}.toml").read_text()
        where = f"built-in {name_or_path}"
    else:
        raise ConfigError(
            f"unknown experiment {name_or_path!r}; built in: "
            f"{', '.join(builtin_names())}, or give a .toml spec file"
        )
    try:
        return ExperimentSpec.model_validate(tomllib.loads(text))
    except (tomllib.TOMLDecodeError, ValidationError) as exc:
        raise ConfigError(f"{where}: {exc}") from None
