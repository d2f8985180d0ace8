"""The bundle of role backends a market runs with. Any role can come from any backend.

A run's records depend on which backend answered each role. The built-in ones are fixed by
the run's settings (the offline model's parameters, the models of an ``[llm]`` table), which
its hash covers already; a backend from outside recmarket is not, so ``Agents.identity``
names it (its own ``identity`` string, else its class and its distribution's version), and
a run directory made with one backend is not resumed with another.

A backend registered by name (``recmarket.catalogue.roles``: ``ROLE_BACKENDS``, or another
package's entry point in the ``recmarket.roles`` group) can be chosen in a run's settings
(``[roles] shortlist = "records-only"``): every process that plays episodes, a reproduce
worker or a Ray task included, then builds it from the settings alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from functools import cache
from typing import Any, get_args, get_type_hints

from recmarket.agents.contracts import (
    CopyInput,
    Decision,
    DecisionInput,
    Explanation,
    ExplanationInput,
    Listing,
    NeedInput,
    Query,
    QueryInput,
    ReputationRecord,
    Review,
    ReviewInput,
    Role,
    Shortlist,
    ShortlistInput,
    StructuredNeed,
    UpdateInput,
)
from recmarket.catalogue.origins import owning_distribution
from recmarket.catalogue.roles import RoleSetting, chosen_backend, role_setting
from recmarket.embedding import Embedder
from recmarket.vocabulary import ROLES, RoleName


@dataclass(frozen=True)
class Agents:
    """The eight role backends of a run, one per role of a round, in its order. Replace
    one with ``dataclasses.replace(agents, shortlist=MyRanker())``."""

    query: Role[QueryInput, Query]
    need: Role[NeedInput, StructuredNeed]
    explain: Role[ExplanationInput, Explanation]
    copywriter: Role[CopyInput, Listing]
    shortlist: Role[ShortlistInput, Shortlist]
    decide: Role[DecisionInput, Decision]
    review: Role[ReviewInput, Review]
    update: Role[UpdateInput, ReputationRecord]

    @property
    def answer_at_once(self) -> bool:
        """Whether every role answers without waiting, as the offline rules say of
        themselves (``answers_at_once``): a round then makes a stage's calls one after
        another rather than as concurrent tasks, with the same results."""
        return all(getattr(getattr(self, f.name), "answers_at_once", False) for f in fields(self))

    def identity(self) -> dict[RoleName, str]:
        """Each role answered by a backend from outside recmarket, and what it is."""
        found = {role: backend_identity(getattr(self, role)) for role in ROLES}
        return {role: who for role, who in found.items() if who is not None}


def with_backends(
    agents: Agents, chosen: Mapping[RoleName, str | RoleSetting], embedder: Embedder, offline: Any
) -> Agents:
    """``agents`` with the roles of ``chosen`` ({role: backend name or setting}) built by
    name, each with its own parameters."""
    built = {}
    for role, value in chosen.items():
        setting = role_setting(value)
        backend = chosen_backend(role, setting.backend)
        built[role] = backend.make(embedder, offline, setting.built())
    return replace(agents, **built)


def backend_identity(backend: object) -> str | None:
    """None for a recmarket backend (its behaviour is in the run's settings); else the
    backend's own ``identity`` string, or its class with its distribution's version."""
    own = getattr(backend, "identity", None)
    if isinstance(own, str):
        return own
    kind = type(backend)
    top = kind.__module__.split(".")[0]
    if top == "recmarket":
        return None
    name = f"{kind.__module__}.{kind.__qualname__}"
    found = _version_of(kind.__module__)
    return f"{name} {found}" if found else name


@cache
def _version_of(module: str) -> str | None:
    dist = owning_distribution(module)
    return dist.version if dist is not None else None


# Each role's (input, output) contract types, read off the bundle so they cannot diverge.
ROLE_TYPES: dict[str, tuple[type, type]] = {
    f.name: get_args(get_type_hints(Agents)[f.name]) for f in fields(Agents)
}
