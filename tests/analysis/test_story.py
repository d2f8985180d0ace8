"""An episode as a story: what it says agrees with the episode's own row, for every episode
of a small run of each condition, and a failed role ends the story."""

import pytest
from typer.testing import CliRunner

from recmarket.analysis.story import episode_story, headline
from recmarket.cli import app
from recmarket.run.episode_rows import StoredCall
from recmarket.run.replay import calls_of
from recmarket.run.store import RunStore


@pytest.fixture(scope="module", params=["local-rep", "platform-centric"])
def episodes(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> list:
    out = tmp_path_factory.mktemp("story") / request.param
    args = ["run", "--requests", "24", "--domain", "Video_Games", "--out", str(out)]
    result = CliRunner().invoke(app, [*args, "--condition", request.param])
    assert result.exit_code == 0, result.output
    with RunStore.read(out) as store:
        rows = store.episodes()
        calls = calls_of(store, "Video_Games", [row["ord"] for row in rows])
        return [(row, calls[row["ord"]]) for row in rows]


def test_the_story_agrees_with_the_row(episodes: list) -> None:
    for row, calls in episodes:
        story = episode_story(row, calls)
        marked = [p for p in story["pool"] if p["target"]]
        assert bool(marked) == bool(row["target_present"]), row["episode_id"]
        assert len(marked) == row["target_copies"]
        bought = [p["platform"] for p in story["pool"] if p["bought"]]
        assert bought == ([row["purchased_platform"]] if row["any_purchase"] else [])
        shortlisted = any(p["target"] and p["rank"] for p in marked)
        assert shortlisted == bool(row["target_shortlisted"])
        assert any(p["target"] and p["rank"] == 1 for p in marked) == bool(row["target_top1"])
        said = story["headline"]
        assert said.startswith("Bought the target") == bool(row["target_purchased"])
        assert said.startswith("Bought nothing") == bool(row["no_purchase"])
        if row["rep_label"]:
            assert story["record"]["claim_reliability"] == row["rep_label"]


def test_a_failed_role_ends_the_story() -> None:
    row = {
        "episode_id": "D/u",
        "condition": "no-rep",
        "profile": "p",
        "sim_user": 0,
        "round": 0,
        "failed_role": "need",
        "target_purchased": False,
        "any_purchase": False,
        "purchased_platform": None,
        "rep_platform": None,
    }
    query = StoredCall(0, "query", {"target": {"title": "T"}}, {"query_text": "a lamp"})
    story = episode_story(row, [query, StoredCall(1, "need", {}, None)])
    assert story["outcome"] == "failed" and story["pool"] == [] and story["target"] == "T"
    assert headline(row, story) == ("No purchase: the need role failed, which ended the episode.")
