"""The bundle of role backends a market runs with. Any role can come from any backend.

A run's records depend on which backend answered each role. The built-in ones are fixed by
the run's settings (the offline model's parameters, the models of an ``[llm]`` table), which
its hash covers already; a backend from outside recmarket is not, so ``Agents.identity``
names it (its own ``identity`` string, else its class and its distribution's version), and
a run directory made with one backend is not resumed with another.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from functools import cache
from importlib.metadata import packages_distributions, version
from typing import get_args, get_type_hints

from recmarket.agents.contracts import (
    Decision,
    DecisionInput,
    Explanation,
    ExplanationInput,
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


@dataclass(frozen=True)
class Agents:
    """The seven role backends of a run, one per role of a round, in its order. Replace
    one with ``dataclasses.replace(agents, shortlist=MyRanker())``."""

    query: Role[QueryInput, Query]
    need: Role[NeedInput, StructuredNeed]
    explain: Role[ExplanationInput, Explanation]
    shortlist: Role[ShortlistInput, Shortlist]
    decide: Role[DecisionInput, Decision]
    review: Role[ReviewInput, Review]
    update: Role[UpdateInput, ReputationRecord]

    def identity(self) -> dict[str, str]:
        """Each role answered by a backend from outside recmarket, and what it is."""
        found = {f.name: backend_identity(getattr(self, f.name)) for f in fields(self)}
        return {role: who for role, who in found.items() if who is not None}


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
    found = _version_of(top)
    return f"{name} {found}" if found else name


@cache
def _version_of(top_module: str) -> str | None:
    dists = packages_distributions().get(top_module, [])
    return version(dists[0]) if dists else None


# Each role's (input, output) contract types, read off the bundle so they cannot diverge.
ROLE_TYPES: dict[str, tuple[type, type]] = {
    f.name: get_args(get_type_hints(Agents)[f.name]) for f in fields(Agents)
}
