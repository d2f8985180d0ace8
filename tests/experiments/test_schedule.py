"""What --scale cuts: breadth before rounds where users remember, episodes elsewhere."""

from recmarket.experiments.schedule import TWIN
from recmarket.experiments.spec import ExperimentSpec, load_spec


def spec(conditions: list[str], scope: str = "local", requests: int = 600) -> ExperimentSpec:
    return ExperimentSpec.model_validate(
        {
            "name": "t",
            "description": "t",
            "requests": requests,
            "base": {"reputation_scope": scope},
            "axes": {"condition": conditions},
            "seeds": [1, 2, 3],
        }
    )


def test_users_who_remember_keep_their_rounds_and_lose_breadth() -> None:
    cells = spec(["no-rep", "local-rep"]).configs(0.1)
    assert [name.split("/")[-1] for name, _ in cells] == ["seed=1", "seed=1"]  # one seed kept
    for _, cfg in cells:
        assert cfg.episodes.users_per_profile == 1
        rounds = cfg.episodes.requests / 6
        assert rounds >= 50 / 2  # half of the 50 a user plays at full scale
        assert rounds >= 1.25 * 6 * 10 / 2  # a quarter past N x W / 2
    # paired arms keep the same requests
    assert len({cfg.episodes.requests for _, cfg in cells}) == 1


def test_users_who_remember_beside_a_platform_that_learns_keep_two_seeds() -> None:
    """An attacker that watches its share makes a local-records cell depend on its whole
    domain: two seeds kept, for it and the honest cell it is paired with, so it has an
    interval."""
    learning = {"P4": {"attack": "whitewash"}}
    cells = ExperimentSpec.model_validate(
        {
            "name": "t",
            "description": "t",
            "requests": 600,
            "base": {"condition": "local-rep", "reputation_scope": "local"},
            "cells": [
                {"name": "honest"},
                {"name": "ww", "settings": {"market": {"attacks": learning}}},
            ],
            "seeds": [1, 2, 3],
        }
    ).configs(0.1)
    assert sorted(name for name, _ in cells) == [
        "honest/seed=1", "honest/seed=2", "ww/seed=1", "ww/seed=2"
    ]  # fmt: skip
    assert len({(c.episodes.requests, c.episodes.users_per_profile) for _, c in cells}) == 1


def test_breadth_returns_as_the_scale_pays_for_it() -> None:
    cells = spec(["local-rep"]).configs(0.5)
    assert len(cells) == 3  # 0.5 x 3 seeds x 2 users = 3 users' full rounds a profile
    assert {(c.episodes.users_per_profile, c.episodes.requests) for _, c in cells} == {(1, 300)}
    full = spec(["local-rep"]).configs(1.0)
    assert {(c.episodes.users_per_profile, c.episodes.requests) for _, c in full} == {(2, 600)}


def test_a_shared_memory_keeps_its_seeds_and_is_cut_in_episodes() -> None:
    for conditions, scope in ((["no-rep", "local-rep"], "shared"), (["no-rep"], "local")):
        cells = spec(conditions, scope).configs(0.1)
        assert len(cells) == 3 * len(conditions)
        assert {(c.episodes.users_per_profile, c.episodes.requests) for _, c in cells} == {(2, 60)}
        assert not spec(conditions, scope).schedule(0.1).breadth_first


def test_a_shared_memory_beside_users_own_each_gets_its_cut() -> None:
    """Users who remember keep their rounds beside a shared memory (issue 63: one had left
    them 5 of 50), the shared memory keeps its seeds, and every contrast stays paired."""
    mixed = ExperimentSpec.model_validate(
        {
            "name": "t",
            "description": "t",
            "requests": 600,
            "axes": {
                "scope": [
                    {"name": "none", "settings": {"condition": "no-rep"}},
                    {"name": "local", "settings": {"condition": "local-rep"}},
                    {
                        "name": "shared",
                        "settings": {"condition": "local-rep", "reputation_scope": "shared"},
                    },
                ]
            },
            "seeds": [1, 2, 3],
        }
    )
    schedule = mixed.schedule(0.1)
    assert schedule.breadth_first and schedule.seeds == 1 and schedule.spec_seeds == 3
    cells = dict(mixed.configs(0.1))
    # the remembering users: one seed, one user a profile, 38 rounds (1.25 x 6 x 10 / 2)
    local = [c for n, c in cells.items() if n.startswith("scope=local/")]
    assert [c.seed for c in local] == [1]
    assert (local[0].episodes.users_per_profile, local[0].episodes.requests) == (1, 228)
    # the shared memory keeps its seeds, cut in episodes
    shared = [c for n, c in cells.items() if n.startswith("scope=shared/")]
    assert [c.seed for c in shared] == [1, 2, 3]
    assert {(c.episodes.users_per_profile, c.episodes.requests) for c in shared} == {(2, 60)}
    # the memoryless cell is played on both, each copy paired with its partners' requests
    twin = cells[f"scope=none/seed=1/{TWIN}"]
    assert twin.episodes == local[0].episodes
    plain = [c for n, c in cells.items() if n.startswith("scope=none/") and TWIN not in n]
    assert [c.seed for c in plain] == [1, 2, 3]
    assert all(c.episodes == shared[0].episodes for c in plain)
    assert "every seed" in schedule.said()


def test_a_memory_a_profile_shares_keeps_two_users_a_profile() -> None:
    """With one user a profile, a profile's memory would be that user's own: the scopes'
    Style-6 would be Local-12 under another name."""
    for scope, users in (("style", 2), ("local", 1)):
        cells = spec(["no-rep", "local-rep"], scope).configs(0.1)
        assert {c.episodes.users_per_profile for _, c in cells} == {users}
    scopes = load_spec("reputation-scope").replicated(3, 42).configs(0.1)
    style = [c for name, c in scopes if name.startswith("Style-6")]
    assert [c.episodes.users_per_profile for c in style] == [2]


def test_the_accountability_spec_at_a_tenth() -> None:
    given = load_spec("accountability").replicated(3, 42)
    schedule = given.schedule(0.1)
    assert schedule.breadth_first and schedule.seeds == 1 and schedule.users == 1
    assert "1 of 3 seeds" in schedule.said()
    cells = given.configs(0.1)
    assert len(cells) == 9
    full = sum(c.episodes.requests for _, c in given.configs(1.0))
    cut = sum(c.episodes.requests for _, c in cells)
    assert 0.1 <= cut / full <= 0.12  # what a tenth costs, a user's rounds kept
