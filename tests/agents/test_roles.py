"""Which role backends a run must record: those whose behaviour its settings do not fix."""

from dataclasses import replace

from recmarket.agents.roles import backend_identity
from recmarket.agents.rules import offline_agents
from recmarket.embedding import load_embedder
from recmarket.embedding.settings import EmbedderConfig


class Ranker:
    async def __call__(self, inp, seed):  # pragma: no cover - never called here
        raise NotImplementedError


class NamedRanker(Ranker):
    identity = "my-lab ranker v3"


def test_recmarket_backends_are_fixed_by_the_settings_and_others_are_named() -> None:
    agents = offline_agents(load_embedder(EmbedderConfig()))
    assert agents.identity() == {}
    assert backend_identity(Ranker()) == f"{__name__}.Ranker"  # no distribution: no version
    assert backend_identity(NamedRanker()) == "my-lab ranker v3"
    mixed = replace(agents, shortlist=Ranker(), update=NamedRanker())
    assert mixed.identity() == {"shortlist": f"{__name__}.Ranker", "update": "my-lab ranker v3"}
