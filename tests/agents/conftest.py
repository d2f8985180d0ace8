"""Fixtures for the agents' tests: the bundled embedder, its judge and a few real items."""

import pytest

from recmarket.agents.judgement import Judge
from recmarket.agents.rules.params import OfflineParams
from recmarket.data import BUNDLED_DATA_DIR
from recmarket.data.domain import domain_files, load_domain
from recmarket.embedding import load_embedder
from recmarket.embedding.settings import EmbedderConfig


@pytest.fixture(scope="session")
def embedder():
    return load_embedder(EmbedderConfig())


@pytest.fixture(scope="session")
def judge(embedder):
    return Judge.of(embedder, OfflineParams().scale)


@pytest.fixture(scope="session")
def domain():
    return load_domain(domain_files(BUNDLED_DATA_DIR, "Sports_and_Outdoors"))
