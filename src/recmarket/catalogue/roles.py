"""Role backends by name: what a run's settings can choose to answer a role instead of the
offline model (``[roles] shortlist = "records-only"``, or ``{ backend = NAME, params = {...}
}``).

A backend is registered here or by another package under the ``recmarket.roles``
entry-point group; every process that plays episodes, a reproduce worker or a Ray task
included, builds it from the settings alone (``recmarket.agents.roles.with_backends``).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import BaseModel, Field

from recmarket.catalogue.registry import NameIn, NoParams, Registry, VariantSetting
from recmarket.vocabulary import ROLES, RoleName


@dataclass(frozen=True)
class RoleBackend:
    """A role backend under a name settings can give, built in the process that plays.

    ``make(embedder, offline, params)``: Args: the run's embedder, its offline parameters
    (``OfflineParams``) and this backend's own validated ``Params``. Returns: the role's
    callable, a ``Role`` of its contract. Raises: nothing for valid parameters."""

    name: str
    role: RoleName  # the role it answers
    make: Callable[[Any, Any, Any], Any]
    Params: type[BaseModel] = NoParams


def probe(backend: RoleBackend, params: BaseModel) -> None:
    """The contract, checked when a run names the backend: a role of the round, and a
    ``make`` that takes the embedder, the offline parameters and its own parameters."""
    if backend.role not in ROLES:
        raise ValueError(f"it answers {backend.role!r}, which is not a role")
    try:
        inspect.signature(backend.make).bind(None, None, params)
    except TypeError as error:
        raise ValueError(f"make(embedder, offline, params) cannot be called: {error}") from None


ROLE_BACKENDS: Registry[RoleBackend] = Registry(
    "role backend", "recmarket.roles", RoleBackend, lambda b: b.name, probe
)


# A role backend's name in a setting: any registered backend.
RoleBackendName = Annotated[str, NameIn(ROLE_BACKENDS)]


class RoleSetting(VariantSetting):
    """A role's backend with its parameters (``[roles] shortlist = { backend =
    "records-only", params = { ... } }``; a bare name is the same with none)."""

    REGISTRY = ROLE_BACKENDS
    KEY = "backend"
    backend: RoleBackendName = Field(description="a registered role backend")


def role_setting(value: str | RoleSetting) -> RoleSetting:
    """A role's setting as a backend name and parameters, whichever form the settings gave."""
    return RoleSetting(backend=value) if isinstance(value, str) else value


def chosen_backend(role: RoleName, name: str) -> RoleBackend:
    """The registered backend ``name`` for ``role``; a clear error if it answers another."""
    backend = ROLE_BACKENDS.get(name)
    if backend.role != role:
        raise ValueError(f"role backend {name!r} answers the {backend.role} role, not {role}")
    return backend
