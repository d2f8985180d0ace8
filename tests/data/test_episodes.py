from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from recmarket.config import EpisodeConfig
from recmarket.data.domain import domain_files, load_domain
from recmarket.data.episodes import index_episodes, repeated_targets, sample_requests
from recmarket.data.raw import DataError
from recmarket.profiles import PROFILE_NAMES
from tests.data.test_domain import newest_first
from tests.fixtures import meta

ITEMS = [f"i{k:02d}" for k in range(30)]


def load(make_domain: Callable[..., Path], reviews: list[dict]):
    return load_domain(domain_files(make_domain(reviews, [meta(x) for x in ITEMS]), "Tiny"))


def only_episode(domain) -> tuple[list[str], str]:
    (request,) = sample_requests(domain, EpisodeConfig(requests=1), seed=0)
    ep = request.episode
    return [h.parent_asin for h in ep.history], ep.target.parent_asin


def test_minimum_interactions(make_domain: Callable[..., Path]) -> None:
    domain = load(make_domain, newest_first("four", ITEMS[:4]) + newest_first("five", ITEMS[:5]))
    assert domain.n_users == 1
    assert len(index_episodes(domain, EpisodeConfig())) == 1


def test_target_is_last_liked_in_window_and_later_rows_are_dropped(
    make_domain: Callable[..., Path],
) -> None:
    ratings = [5.0] * 6 + [4.0, 2.0, 3.0]
    history, target = only_episode(load(make_domain, newest_first("u", ITEMS[:9], ratings)))
    assert target == ITEMS[6]
    assert history == ITEMS[:6]


def test_only_the_twenty_most_recent_count(make_domain: Callable[..., Path]) -> None:
    ratings = [5.0] * 5 + [1.0] * 20  # the liked ones are all outside the last 20
    domain = load(make_domain, newest_first("u", ITEMS[:25], ratings))
    assert len(index_episodes(domain, EpisodeConfig())) == 0

    ratings = [5.0] * 25
    history, target = only_episode(load(make_domain, newest_first("v", ITEMS[:25], ratings)))
    assert target == ITEMS[24]
    assert history == ITEMS[5:24]  # 19 earlier interactions of the 20 kept


def test_time_not_file_order_decides(make_domain: Callable[..., Path]) -> None:
    rows = newest_first("u", ITEMS[:6])
    rows = rows[3:] + rows[:3]  # scramble the file order
    history, target = only_episode(load(make_domain, rows))
    assert target == ITEMS[5]
    assert history == ITEMS[:5]


@pytest.fixture
def population(make_domain: Callable[..., Path]):
    reviews = []
    for u in range(100):
        reviews += newest_first(
            f"user{u:03d}", ITEMS[u % 10 : u % 10 + 6], start=1_600_000_000_000 + u * 1_000_000
        )
    return load(make_domain, reviews)


def test_requests_are_balanced_ordered_and_deterministic(population) -> None:
    cfg = EpisodeConfig(requests=50, users_per_profile=2)
    requests = sample_requests(population, cfg, seed=7)
    assert len(requests) == 50
    assert len({r.episode.episode_id for r in requests}) == 50
    per_profile = Counter(r.profile for r in requests)
    assert set(per_profile) == set(PROFILE_NAMES)
    assert max(per_profile.values()) - min(per_profile.values()) <= 1
    assert [r.order for r in requests] == list(range(50))
    for user in range(12):
        own = [r for r in requests if r.sim_user == user]
        assert [r.round for r in own] == list(range(len(own)))
        assert all(r.profile == PROFILE_NAMES[user // 2] for r in own)
        stamps = [r.episode.target.timestamp for r in own]
        assert stamps == sorted(stamps)
    assert sample_requests(population, cfg, seed=7) == requests
    assert sample_requests(population, cfg, seed=8) != requests


def test_smaller_samples_are_subsets(population) -> None:
    small = sample_requests(population, EpisodeConfig(requests=20), seed=3)
    large = sample_requests(population, EpisodeConfig(requests=60), seed=3)
    assert {r.episode.episode_id for r in small} <= {r.episode.episode_id for r in large}


def test_asking_for_more_requests_than_episodes_is_a_clear_error(population) -> None:
    with pytest.raises(DataError, match="100 eligible episodes, fewer than the 101 requests"):
        sample_requests(population, EpisodeConfig(requests=101), seed=0)


def test_the_targets_earlier_reviews_leave_its_history_and_are_counted(
    make_domain: Callable[..., Path],
) -> None:
    """A person who reviewed the target's item before (a re-purchase) does not carry the
    answer in their history; the episode keeps the rest, and the count says how many."""
    items = [ITEMS[0], ITEMS[1], ITEMS[5], ITEMS[2], ITEMS[3], ITEMS[5]]  # i05 twice
    domain = load(make_domain, newest_first("u", items))
    history, target = only_episode(domain)
    assert target == ITEMS[5] and history == [ITEMS[0], ITEMS[1], ITEMS[2], ITEMS[3]]
    assert repeated_targets(domain, index_episodes(domain, EpisodeConfig())) == 1
    once = load(make_domain, newest_first("v", ITEMS[:6]))
    assert repeated_targets(once, index_episodes(once, EpisodeConfig())) == 0
