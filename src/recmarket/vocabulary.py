"""The names every layer shares: conditions, reputation scopes and the seven roles. A leaf
module, so the agents that read a name and the market that assigns one both depend on it
rather than on each other; each name is defined once here. Presentation policies and
reputation mechanisms, which are more than names, are objects in ``recmarket.policies`` and
``recmarket.mechanisms``.
"""

from __future__ import annotations

from typing import Literal, get_args

# The evaluation conditions of Section 4.1.
Condition = Literal["platform-centric", "no-rep", "local-rep"]

# Whose reputation records an episode reads and writes (Appendix A.5): one history set per
# simulated user (Local-12), per profile (Style-6), or one for everybody (Shared-1).
Scope = Literal["local", "style", "shared"]

# The seven roles of one round, in the order a round calls them (Section 3).
Role = Literal["query", "need", "explain", "shortlist", "decide", "review", "update"]
ROLES: tuple[Role, ...] = get_args(Role)
