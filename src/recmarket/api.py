"""The public Python API: what a script or a notebook builds on, in one import.

    from recmarket.api import RunConfig, run, offline_agents, load_embedder
    cfg = RunConfig(condition="local-rep")
    agents = offline_agents(load_embedder(cfg.embedder), cfg.agents)
    result = run(cfg, Path("runs/mine"), agents=replace(agents, shortlist=MyRanker()))

Names here keep their meaning across versions; modules elsewhere may move. Role backends
implement the contracts below (``Role[In, Out]``: ``async def __call__(inp, seed)``) and
are registered in ``ROLE_BACKENDS``. Every other variant is an object in its registry, or
under the registry's entry-point group (docs: Extending recmarket): a presentation policy
(``PresentationPolicy`` in ``POLICIES``), a reputation mechanism (``ReputationMechanism``
in ``MECHANISMS``), a learning rule of adaptive platforms (``LearningRule`` in
``LEARNING_RULES``, its learners ``Learner``s) and a kind of platform strategy
(``StrategyKind`` in ``PLATFORM_STRATEGIES``, its strategies ``PlatformStrategy``s over
``Arm``s).
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
from recmarket.agents.roles import ROLE_BACKENDS, Agents, RoleBackend
from recmarket.agents.rules import offline_agents
from recmarket.config import RunConfig
from recmarket.embedding import load_embedder
from recmarket.experiments.spec import ExperimentSpec, load_spec
from recmarket.market.behaviour.learning import LEARNING_RULES, Learner, LearningRule
from recmarket.market.behaviour.strategies import (
    PLATFORM_STRATEGIES,
    Arm,
    PlatformStrategy,
    StrategyKind,
)
from recmarket.mechanisms import MECHANISMS, ReputationMechanism
from recmarket.policies import POLICIES, PresentationPolicy, Shift, Wording
from recmarket.run.reproduce import reproduce
from recmarket.run.runner import RunResult, run
from recmarket.run.store import RunStore

__all__ = [
    "LEARNING_RULES",
    "MECHANISMS",
    "PLATFORM_STRATEGIES",
    "POLICIES",
    "ROLE_BACKENDS",
    "Agents",
    "Arm",
    "CandidateView",
    "Decision",
    "DecisionInput",
    "ExperimentSpec",
    "Explanation",
    "ExplanationInput",
    "HeldOutTarget",
    "Learner",
    "LearningRule",
    "NeedInput",
    "PastInteraction",
    "PlatformStrategy",
    "PresentationPolicy",
    "Query",
    "QueryInput",
    "RankedItem",
    "ReputationMechanism",
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
    "StrategyKind",
    "StructuredNeed",
    "UpdateInput",
    "Wording",
    "load_embedder",
    "load_spec",
    "offline_agents",
    "reproduce",
    "run",
]
