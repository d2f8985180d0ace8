"""The names every layer shares: conditions, reputation scopes and the eight roles. A leaf
module, so the agents that read a name and the market that assigns one both depend on it
rather than on each other; each name is defined once here. Conditions, scopes, presentation
policies and reputation mechanisms, which are more than names, are objects in registries
in the catalogue (``recmarket.catalogue``: ``conditions``, ``scopes``, ``policies``,
``mechanisms``); another package can add to each, so their names are strings.
"""

from __future__ import annotations

from typing import Literal, TypeGuard, get_args

# An evaluation condition's name (Section 4.1: platform-centric, no-rep, local-rep).
Condition = str

# Whose reputation records an episode reads and writes (Appendix A.5): one history set per
# simulated user (local: Local-12), per profile (style: Style-6), or one for everybody
# (shared: Shared-1).
Scope = str

# The roles of one round, in the order a round calls them (Section 3, and the copywriter a
# platform with a copy strategy asks after its explanation): the name of a role wherever
# one is named (a role's backend is ``recmarket.agents.contracts.Role``).
RoleName = Literal[
    "query", "need", "explain", "copywriter", "shortlist", "decide", "review", "update"
]
ROLES: tuple[RoleName, ...] = get_args(RoleName)


def is_role(name: str) -> TypeGuard[RoleName]:
    """Whether ``name`` (read from a store, a reply or a command line) names a role."""
    return name in ROLES
