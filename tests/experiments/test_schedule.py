"""What --scale cuts: breadth before rounds where users remember, episodes elsewhere."""

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
