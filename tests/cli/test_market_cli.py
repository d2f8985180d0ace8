"""The command line: the main job, the access check, data listing, and clear errors."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from recmarket.cli import app
from recmarket.run.store import RunStore
from tests.data.test_domain import newest_first
from tests.fixtures import meta

runner = CliRunner()


def invoke(*args: str):
    return runner.invoke(app, list(args))


def test_access_check_json_has_the_documented_keys() -> None:
    result = invoke(
        "access-check", "--n", "6", "--rho", "0.1", "--p-hit", "0.8", "--draws", "4000", "--json"
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    for key in (
        "analytic_platform_centric",
        "analytic_user_agent",
        "simulated_platform_centric",
        "simulated_user_agent",
        "se_platform_centric",
        "se_user_agent",
    ):
        assert key in data
    assert abs(data["analytic_user_agent"] - 0.868) < 1e-3


def test_data_list_shows_the_bundled_domains() -> None:
    result = invoke("data", "list", "--json")
    assert result.exit_code == 0, result.output
    rows = {row["domain"]: row for row in json.loads(result.stdout)}
    assert set(rows) == {"Musical_Instruments", "Video_Games", "Sports_and_Outdoors"}
    assert all(r["eligible_episodes"] >= 1300 and r["items"] >= 3000 for r in rows.values())
    assert all(r["untitled_items"] == 0 for r in rows.values())


def test_a_run_over_real_world_titles_plays_every_episode(make_domain, tmp_path: Path) -> None:
    """Targets whose titles lead with codes, are a band's name or are empty: every episode
    is played (the request names a kind from later words or the domain), none crashes, and
    the data listing counts the untitled listing."""
    hard = ["221-615 | WAGO Lever-Nuts Splicing Connector", "60W (80W Peak) Speaker", "2Cellos", ""]
    items = [f"i{k:02d}" for k in range(40)]
    titles = {
        x: hard[k] if k < len(hard) else f"Steel Tool {k}, Heavy Duty" for k, x in enumerate(items)
    }
    reviews = []
    for u in range(24):  # each user's newest item, the target, has a hard title
        reviews += newest_first(f"user{u:03d}", [items[u % len(hard)], *items[4 + u : 9 + u]])
    data = make_domain(reviews, [meta(x, title=titles[x]) for x in items], name="Industrial")
    listed = invoke("data", "list", "--data", str(data), "--json")
    assert json.loads(listed.stdout)[0]["untitled_items"] == 1
    result = invoke(
        "run",
        "--data",
        str(data),
        "--domain",
        "Industrial",
        "--requests",
        "12",
        "--out",
        str(tmp_path / "run"),
    )
    assert result.exit_code == 0, result.output
    with RunStore.read(tmp_path / "run") as store:
        rows = store.episodes()
    assert len(rows) == 12 and not any(r["failed_role"] for r in rows)


@pytest.fixture
def tiny_data(make_domain) -> Path:
    items = [f"i{k:02d}" for k in range(40)]
    reviews = []
    for u in range(60):
        reviews += newest_first(f"user{u:03d}", items[u % 30 : u % 30 + 6])
    return make_domain([*reviews, "{oops"], [meta(x) for x in items], name="Tiny")


def test_build_summarises_a_market_on_any_data_dir(tiny_data: Path, tmp_path: Path) -> None:
    result = invoke(
        "build",
        "--data",
        str(tiny_data),
        "--requests",
        "24",
        "--cache-dir",
        str(tmp_path / "cache"),
    )
    assert result.exit_code == 0, result.output
    assert "Tiny" in result.stdout and "A.2 analytic" in result.stdout
    assert "Tiny.jsonl:361: invalid JSON" in result.stderr  # skipped line, located


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--k", "7"], "--k: K=7 cannot exceed the number of platforms N=6"),
        (["--rho", "1.5"], "--rho: Input should be less than or equal to 1"),
        (["--policies", "strict,hype"], "unknown policy name 'hype'"),
        (["--requests", "500"], "fewer than the 500 requests"),
        (["--domain", "Nope"], "no Nope.jsonl"),
    ],
)
def test_bad_input_gets_one_clear_line_and_exit_2(
    tiny_data: Path, flags: list[str], message: str
) -> None:
    result = invoke("build", "--data", str(tiny_data), "--requests", "24", *flags)
    assert result.exit_code == 2
    assert message in " ".join(result.stderr.split())
    assert "Traceback" not in result.output


def test_strict_stops_at_the_malformed_line(tiny_data: Path) -> None:
    result = invoke("data", "list", "--data", str(tiny_data), "--strict")
    assert result.exit_code == 2
    assert "Tiny.jsonl:361: invalid JSON" in result.stderr
