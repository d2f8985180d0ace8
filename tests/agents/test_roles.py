"""Which role backends a run must record: those whose behaviour its settings do not fix."""

from dataclasses import replace

import pytest
from pydantic import ValidationError

from recmarket.agents.roles import backend_identity
from recmarket.agents.rules import offline_agents
from recmarket.catalogue.roles import ROLE_BACKENDS, RoleBackend, chosen_backend
from recmarket.config import RunConfig
from recmarket.embedding import load_embedder
from recmarket.embedding.settings import EmbedderConfig
from recmarket.run.runner import own_roles


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


def test_settings_name_only_registered_backends_for_the_role_they_answer() -> None:
    with pytest.raises(ValidationError, match=r"roles.ranker.\[key\]\n  Input should be 'query'"):
        RunConfig.model_validate({"roles": {"ranker": "x"}})
    with pytest.raises(ValidationError, match="unknown role backend name 'x'"):
        RunConfig(roles={"shortlist": "x"})
    backend = RoleBackend("first-k", "shortlist", lambda embedder, offline, params: Ranker())
    ROLE_BACKENDS.register(backend)  # as a package's entry point would
    assert chosen_backend("shortlist", "first-k") is backend
    with pytest.raises(ValueError, match="'first-k' answers the shortlist role, not update"):
        chosen_backend("update", "first-k")
    chosen = RunConfig(roles={"shortlist": "first-k"})
    assert chosen.digest() != RunConfig().digest()  # a run with it is another run
    agents = offline_agents(load_embedder(EmbedderConfig()), chosen.agents, chosen.roles)
    assert isinstance(agents.shortlist, Ranker)
    # Named in the settings, it is in the hash: a run and a reproduce worker open one store.
    assert own_roles(chosen, agents) == {}
