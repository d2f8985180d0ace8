"""The offline behavioural backend: every role answered by a transparent rule model."""

from recmarket.agents.roles import Agents
from recmarket.agents.rules.agent import RuleNeedStructurer, RuleRanker, RuleUpdater
from recmarket.agents.rules.params import OfflineParams
from recmarket.agents.rules.platform import RuleExplainer
from recmarket.agents.rules.user import RuleDecision, RuleQueryGenerator, RuleReview

__all__ = ["offline_agents"]


def offline_agents(params: OfflineParams | None = None) -> Agents:
    """The seven roles, all answered by rules."""
    params = params or OfflineParams()
    return Agents(
        query=RuleQueryGenerator(params.query),
        need=RuleNeedStructurer(),
        explain=RuleExplainer(),
        shortlist=RuleRanker(params.ranker),
        decide=RuleDecision(params.decision),
        review=RuleReview(params.review),
        update=RuleUpdater(),
    )
