"""The command line: the main job, the access check, data listing, and clear errors."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from recmarket.cli import app
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
