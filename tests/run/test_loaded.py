"""A process loads each domain and request sample once, and again when the files change."""

from collections.abc import Callable
from pathlib import Path

from recmarket.config import EpisodeConfig
from recmarket.run.loaded import domain_for, requests_for
from tests.data.test_domain import newest_first
from tests.fixtures import meta


def tiny(make_domain: Callable[..., Path], users: int) -> Path:
    reviews = [r for u in range(users) for r in newest_first(f"U{u}", list("abcdef"))]
    return make_domain(reviews, [meta(x) for x in "abcdef"])


def test_a_domain_is_read_once_and_again_when_its_files_change(
    make_domain: Callable[..., Path],
) -> None:
    directory = tiny(make_domain, 3)
    first = domain_for(directory, "Tiny", 5)
    assert domain_for(directory, "Tiny", 5) is first
    assert domain_for(directory, "Tiny", 6) is not first  # other settings, another reading
    tiny(make_domain, 4)  # rewritten in place
    again = domain_for(directory, "Tiny", 5)
    assert again is not first and again.n_users == 4


def test_requests_are_sampled_once_per_setting_and_seed(make_domain: Callable[..., Path]) -> None:
    directory = tiny(make_domain, 4)
    episodes = EpisodeConfig(requests=4)
    domain, requests = requests_for(directory, "Tiny", episodes, 42)
    assert requests_for(directory, "Tiny", episodes, 42) == (domain, requests)
    assert requests_for(directory, "Tiny", episodes, 42)[1] is requests
    assert requests_for(directory, "Tiny", episodes, 43)[1] is not requests
    assert requests_for(directory, "Tiny", EpisodeConfig(requests=3), 42)[1] is not requests
