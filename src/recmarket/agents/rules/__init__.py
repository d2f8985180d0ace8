"""The offline behavioural backend: every role answered by a documented stochastic model."""

from __future__ import annotations

from collections.abc import Mapping

from recmarket.agents.judgement import Judge
from recmarket.agents.roles import Agents, with_backends
from recmarket.agents.rules.agent import RuleNeedStructurer, RuleRanker, RuleUpdater
from recmarket.agents.rules.copywriter import RuleCopywriter
from recmarket.agents.rules.params import OfflineParams
from recmarket.agents.rules.platform import RuleExplainer
from recmarket.agents.rules.query import RuleQueryGenerator
from recmarket.agents.rules.user import RuleDecision, RuleReview
from recmarket.catalogue.roles import RoleSetting
from recmarket.embedding import Embedder
from recmarket.vocabulary import RoleName

__all__ = ["offline_agents"]


def offline_agents(
    embedder: Embedder,
    params: OfflineParams | None = None,
    roles: Mapping[RoleName, str | RoleSetting] | None = None,
) -> Agents:
    """The eight roles answered offline, by this behavioural model or, for the roles in
    ``roles`` ({role: name}), by the registered backends of those names; fit and closeness
    are judged with the run's embedder."""
    params = params or OfflineParams()
    judge = Judge.of(embedder, params.scale)
    model = Agents(
        query=RuleQueryGenerator(params.query),
        need=RuleNeedStructurer(params.need),
        explain=RuleExplainer(judge, params.platform),
        copywriter=RuleCopywriter(judge),
        shortlist=RuleRanker(judge, params.ranker),
        decide=RuleDecision(judge, params.decision, params.ranker.credence),
        review=RuleReview(judge, params.review),
        update=RuleUpdater(params.scale, params.update),
    )
    return with_backends(model, roles or {}, embedder, params)
