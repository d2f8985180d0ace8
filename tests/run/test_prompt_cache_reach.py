"""What a provider's prompt cache can hold of each role's prompts: every card puts its
instructions and output schema before anything that varies between calls, and the check
says how far each role's shared start is from the provider's threshold."""

from pathlib import Path

import pytest

from recmarket.run.prompt_cache import (
    CacheReach,
    cache_reach,
    probe_cell,
    role_prompts,
    shared_start,
)
from recmarket.vocabulary import ROLES


@pytest.fixture(scope="module")
def reach(tmp_path_factory: pytest.TempPathFactory) -> list[CacheReach]:
    return cache_reach(probe_cell(), tmp_path_factory.mktemp("cache"), 1024)


def test_every_roles_instructions_and_schema_come_before_what_varies(
    reach: list[CacheReach], tmp_path: Path
) -> None:
    prompts = role_prompts(probe_cell(), tmp_path)
    assert set(prompts) == set(ROLES)
    for role, texts in prompts.items():
        assert len(texts) > 1 and "Output:" in shared_start(texts), role
    assert {r.role for r in reach} == set(ROLES)
    assert all(0 < r.stable_tokens < r.mean_tokens for r in reach)


def test_the_padding_is_what_the_shared_start_lacks_of_the_threshold() -> None:
    short = CacheReach("explain", 10, 300, 400.0, 1024)
    assert short.reaches is False and short.padding == 724
    assert CacheReach("explain", 10, 2000, 2100.0, 1024).padding == 0
    assert CacheReach("explain", 10, 300, 400.0, None).reaches is None
