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
``Arm``s), an attack a platform plays against the records (``Attack`` in ``ATTACKS``;
``PlatformBehaviour`` and ``BEHAVIOURS`` are its older names, read with a warning), a
payload family an injecting seat appends
(``PayloadFamily`` in ``PAYLOAD_FAMILIES``), a reputation scope (``SCOPES``), an evaluation
condition (``CONDITIONS``), a market measure (``MarketMeasure`` in ``MARKET_MEASURES``) and
an LLM provider (``LLMProvider`` in ``LLM_PROVIDERS``). ``CATALOGUE`` maps each kind's name
to its registry; a settings field that names a variant is typed ``Annotated[str,
NameIn(REGISTRY)]``, which is how a run finds every variant it uses and records where the
outside ones come from.
"""

from collections.abc import Callable
from pathlib import Path
from typing import Any

from recmarket.agents.contracts import (
    CandidateView,
    CopyInput,
    Decision,
    DecisionInput,
    Explanation,
    ExplanationInput,
    HeldOutTarget,
    Listing,
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
from recmarket.agents.llm.api import ChatAPI, ChatRequest, ProviderError, Reply
from recmarket.agents.roles import Agents
from recmarket.agents.rules import offline_agents
from recmarket.agents.rules.agent import belief_after
from recmarket.agents.rules.params import RankerParams
from recmarket.analysis.bootstrap import Metric
from recmarket.analysis.market_measures import MARKET_MEASURES, MarketMeasure
from recmarket.catalogue.attacks import ATTACKS, Attack
from recmarket.catalogue.conditions import CONDITIONS, MarketCondition
from recmarket.catalogue.learning import LEARNING_RULES, Learner, LearningRule
from recmarket.catalogue.listing_copy import (
    COPY_STRATEGIES,
    CopyBrief,
    CopySetting,
    CopyStrategy,
)
from recmarket.catalogue.mechanisms import MECHANISMS, RecordFacts, ReputationMechanism
from recmarket.catalogue.payloads import PAYLOAD_FAMILIES, PayloadFamily
from recmarket.catalogue.policies import POLICIES, PolicyName, PresentationPolicy, Shift, Wording
from recmarket.catalogue.providers import LLM_PROVIDERS, LLMProvider
from recmarket.catalogue.registry import NameIn, Registry
from recmarket.catalogue.roles import ROLE_BACKENDS, RoleBackend
from recmarket.catalogue.scopes import SCOPES, ReputationScope
from recmarket.catalogue.strategies import (
    PLATFORM_STRATEGIES,
    Arm,
    PlatformStrategy,
    StrategyKind,
)
from recmarket.config import RunConfig
from recmarket.deprecation import warn_older
from recmarket.embedding import load_embedder
from recmarket.experiments.spec import DEFAULT_SEEDS, ExperimentSpec, load_spec
from recmarket.run.pilot import PilotAsked
from recmarket.run.play_options import PlayOptions
from recmarket.run.runner import RunResult, run
from recmarket.run.store import RunStore
from recmarket.run.study_plan import PlannedCell
from recmarket.study import reproduce as _reproduce

# Every kind of variant, by the name its registry gives it: one place to list, look up and
# extend what a run can name.
CATALOGUE: dict[str, Registry[Any]] = {
    registry.kind: registry
    for registry in (
        POLICIES,
        MECHANISMS,
        SCOPES,
        CONDITIONS,
        LEARNING_RULES,
        PLATFORM_STRATEGIES,
        ATTACKS,
        COPY_STRATEGIES,
        PAYLOAD_FAMILIES,
        ROLE_BACKENDS,
        MARKET_MEASURES,
        LLM_PROVIDERS,
    )
}

# Names of the public API that were renamed: the older name -> the current one.
RENAMED = {"PlatformBehaviour": "Attack", "BEHAVIOURS": "ATTACKS"}


def __getattr__(name: str) -> Any:
    """An older name of the API still answers, with a ``DeprecationWarning`` naming the
    current one, so a plugin written against it loads."""
    if name in RENAMED:
        warn_older(f"recmarket.api.{name} is now recmarket.api.{RENAMED[name]}")
        return globals()[RENAMED[name]]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def reproduce(
    names: list[str],
    out: Path,
    *,
    scale: float = 1.0,
    seeds: int = DEFAULT_SEEDS,
    overrides: dict[str, Any] | None = None,
    workers: int = 1,
    pilot: PilotAsked | None = None,
    progress: Callable[[int, int], None] | None = None,
    on_wait: Callable[[str], None] | None = None,
    cache_dir: Path | None = None,
    llm_cache: Path | None = None,
    replay: bool = False,
    budget: float | None = None,
) -> list[PlannedCell]:
    """Run experiments as ``recmarket reproduce`` does (``recmarket.study.reproduce``: the
    study with its add-ons, a pilot among them). Every option is named here, so a misspelt
    one is refused at once; ``cache_dir``, ``llm_cache``, ``replay`` and ``budget`` become
    one ``PlayOptions``."""
    return _reproduce(
        names,
        out,
        scale=scale,
        seeds=seeds,
        overrides=overrides,
        workers=workers,
        pilot=pilot,
        progress=progress,
        on_wait=on_wait,
        options=PlayOptions(cache_dir=cache_dir, llm_cache=llm_cache, replay=replay, budget=budget),
    )


__all__ = [
    "ATTACKS",
    "CATALOGUE",
    "CONDITIONS",
    "COPY_STRATEGIES",
    "LEARNING_RULES",
    "LLM_PROVIDERS",
    "MARKET_MEASURES",
    "MECHANISMS",
    "PAYLOAD_FAMILIES",
    "PLATFORM_STRATEGIES",
    "POLICIES",
    "ROLE_BACKENDS",
    "SCOPES",
    "Agents",
    "Arm",
    "Attack",
    "CandidateView",
    "ChatAPI",
    "ChatRequest",
    "CopyBrief",
    "CopyInput",
    "CopySetting",
    "CopyStrategy",
    "Decision",
    "DecisionInput",
    "ExperimentSpec",
    "Explanation",
    "ExplanationInput",
    "HeldOutTarget",
    "LLMProvider",
    "Learner",
    "LearningRule",
    "Listing",
    "MarketCondition",
    "MarketMeasure",
    "Metric",
    "NameIn",
    "NeedInput",
    "PastInteraction",
    "PayloadFamily",
    "PlatformStrategy",
    "PolicyName",
    "PresentationPolicy",
    "ProviderError",
    "Query",
    "QueryInput",
    "RankedItem",
    "RecordFacts",
    "Registry",
    "Reply",
    "ReputationMechanism",
    "ReputationRecord",
    "ReputationScope",
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


def belief(
    labels: list[str], claim: str = "overclaim", settings: RunConfig | RankerParams | None = None
) -> float:
    """The offline ranker's belief in a claim after a platform's records: the share of the
    claim's distance from the visible evidence it believes. ``labels`` are the records'
    ("high", "mixed", "low"), oldest first; ``claim`` is "overclaim" (above the evidence)
    or "hedge" (below it); ``settings`` a run's settings or its ``[agents.ranker]`` table
    (None: the defaults). With no records it is the prior (``credence``); no number of High
    records raises it, Mixed and Low lower it (Appendix C.4)."""
    params = (
        settings.agents.ranker if isinstance(settings, RunConfig) else settings or RankerParams()
    )
    return belief_after(labels, claim, params)
