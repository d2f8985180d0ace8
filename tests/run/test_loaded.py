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


def test_what_is_kept_is_bounded_by_weight() -> None:
    from collections import OrderedDict

    from recmarket.run.loaded import kept

    memo: OrderedDict = OrderedDict()
    loads = []

    def load(value: int):
        return lambda: loads.append(value) or [0] * value

    kept(memo, "a", load(4), len, 10)
    kept(memo, "b", load(5), len, 10)
    kept(memo, "a", load(4), len, 10)  # served, and now the most recently used
    assert loads == [4, 5] and list(memo) == ["b", "a"]
    kept(memo, "c", load(3), len, 10)  # 12 > 10: the least recently used ("b") goes
    assert list(memo) == ["a", "c"]
    assert len(kept(memo, "huge", load(11), len, 10)) == 11  # handed out, not kept
    assert list(memo) == ["a", "c"]
    held_while_loading = []

    def heavy() -> list:
        held_while_loading.extend(memo)
        return [0] * 8

    kept(memo, "d", heavy, len, 10, expected=8)  # room made before it is loaded
    assert held_while_loading == [] and list(memo) == ["d"]
