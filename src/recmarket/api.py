"""The public Python API: what a script or a notebook builds on, in one import.

    from recmarket.api import RunConfig, run, offline_agents, load_embedder
    cfg = RunConfig(condition="local-rep")
    agents = offline_agents(load_embedder(cfg.embedder), cfg.agents)
    result = run(cfg, Path("runs/mine"), agents=replace(agents, shortlist=MyRanker()))

Names here keep their meaning across versions; modules elsewhere may move. Role backends
implement the contracts below (``Role[In, Out]``: ``async def __call__(inp, seed)``), and a
presentation policy is a ``PresentationPolicy`` registered in ``POLICIES`` or under the
``recmarket.policies`` entry-point group (docs: Extending recmarket).
"""

from recmarket.agents.contracts import (
    CandidateView,
    Decision,
    DecisionInput,
    Explanation,
    ExplanationInput,
    HeldOutTarget,
    NeedInput,
    PastInteraction,
    Query,
    QueryInput,
    RankedItem,
    ReputationRecord,
    Review,
    ReviewInput,
    Role,
    RoleFailure,
    Shortlist,
    ShortlistInput,
    ShownOption,
    StructuredNeed,
    UpdateInput,
)
from recmarket.agents.roles import Agents, RoleBackend
from recmarket.agents.rules import offline_agents
from recmarket.config import RunConfig
from recmarket.embedding import load_embedder
from recmarket.experiments.spec import ExperimentSpec, load_spec
from recmarket.policies import POLICIES, PresentationPolicy, Shift, Wording
from recmarket.run.reproduce import reproduce
from recmarket.run.runner import RunResult, run
from recmarket.run.store import RunStore

__all__ = [
    "POLICIES",
    "Agents",
    "CandidateView",
    "Decision",
    "DecisionInput",
    "ExperimentSpec",
    "Explanation",
    "ExplanationInput",
    "HeldOutTarget",
    "NeedInput",
    "PastInteraction",
    "PresentationPolicy",
    "Query",
    "QueryInput",
    "RankedItem",
    "ReputationRecord",
    "Review",
    "ReviewInput",
    "Role",
    "RoleBackend",
    "RoleFailure",
    "RunConfig",
    "RunResult",
    "RunStore",
    "Shift",
    "Shortlist",
    "ShortlistInput",
    "ShownOption",
    "StructuredNeed",
    "UpdateInput",
    "Wording",
    "load_embedder",
    "load_spec",
    "offline_agents",
    "reproduce",
    "run",
]
