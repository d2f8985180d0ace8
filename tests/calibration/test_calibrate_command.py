"""recmarket calibrate: on a simulated run, and on a pilot through the loopback fake LLM."""

import json
import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from recmarket.cli import app
from recmarket.config import RunConfig
from recmarket.run.runner import run
from recmarket.run.store import RunStore
from recmarket.testing.fake_llm import FakeLLM
from tests.fixtures import fake_llm_pilot

runner = CliRunner()


@pytest.mark.slow  # end to end: simulated runs, calibrate and its check; .ci/run -m slow
def test_calibrate_writes_a_config_run_accepts_and_a_fit_report(simulated, tmp_path: Path) -> None:
    out = tmp_path / "params.toml"
    result = runner.invoke(app, ["calibrate", str(simulated[0]), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "null model" in result.stdout and "held-out top1 agreement" in result.stdout
    settings = tomllib.loads(out.read_text())
    assert set(settings) == {"agents"}
    assert settings["agents"]["update"] == {"mixed_gap": 0.3, "low_gap": 0.5}
    report = json.loads(out.with_suffix(".fit.json").read_text())
    assert report["ranker"]["observations"] > 1000 and set(report["held_out"]) == {
        "top1",
        "decision",
        "label",
    }
    args = ["--config", str(out), "--domain", "Video_Games", "--requests", "24", "--json"]
    rerun = runner.invoke(app, ["run", *args, "--out", str(tmp_path / "again")])
    assert rerun.exit_code == 0, rerun.output
    assert json.loads(rerun.stdout)["config"]["agents"]["ranker"]["noise"] == "gumbel"


def test_calibrate_names_a_directory_without_a_run(tmp_path: Path) -> None:
    result = runner.invoke(app, ["calibrate", str(tmp_path)])
    assert result.exit_code == 2 and "no run store" in result.stderr


@pytest.mark.slow  # end to end: simulated runs, calibrate and its check; .ci/run -m slow
def test_a_pilot_through_the_fake_llm_calibrates_and_says_what_it_could_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RECMARKET_TEST_KEY", "sk-test")
    with FakeLLM() as server:
        fake_llm_pilot(server, tmp_path / "pilot", tmp_path / "calls.sqlite", 36)
    out = tmp_path / "pilot.toml"
    result = runner.invoke(app, ["calibrate", str(tmp_path / "pilot"), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "not identified" in result.stderr  # what the fake's words leave open is said
    RunConfig.model_validate(tomllib.loads(out.read_text()))


@pytest.mark.slow  # end to end: simulated runs, calibrate and its check; .ci/run -m slow
def test_reproduce_takes_the_calibrated_table_for_every_cell(simulated, tmp_path: Path) -> None:
    params = tmp_path / "params.toml"
    assert runner.invoke(app, ["calibrate", str(simulated[0]), "--out", str(params)]).exit_code == 0
    out = tmp_path / "r"
    args = ["reproduce", "catalog-overlap", "--scale", "0.02", "--config", str(params)]
    result = runner.invoke(app, [*args, "--out", str(out), "--workers", "1"])
    assert result.exit_code == 0, result.output
    for store in out.glob("cells/*/run.sqlite"):
        with RunStore.read(store.parent) as opened:
            assert opened.config().agents.update.mixed_gap == 0.3  # the calibrated value


@pytest.mark.slow  # end to end: simulated runs, calibrate and its check; .ci/run -m slow
def test_the_check_predicts_a_cell_of_the_same_agents_and_flags_other_agents(
    simulated, tmp_path: Path
) -> None:
    from tests.calibration.conftest import DOMAINS, PROFILES, RANKER, UPDATE

    def offline_cell(out: Path, outside: float | None) -> Path:
        profiles = PROFILES
        if outside is not None:  # agents that hardly ever buy: not what was calibrated
            profiles = {name: {**p, "outside": outside} for name, p in PROFILES.items()}
        cfg = RunConfig.model_validate(
            {
                "condition": "no-rep",
                "domains": DOMAINS[:1],
                "episodes": {"requests": 60},
                "agents": {"ranker": RANKER, "decision": {"profiles": profiles}, "update": UPDATE},
            }
        )
        run(cfg, out).store.close()
        return out

    same = offline_cell(tmp_path / "same", None)
    other = offline_cell(tmp_path / "other", 40.0)
    args = ["calibrate", str(simulated[0]), "--out", str(tmp_path / "p.toml")]
    checks = ["--check", str(same), "--check", str(other), "--replicates", "8"]
    result = runner.invoke(app, [*args, *checks])
    assert result.exit_code == 0, result.output
    cells = [[c.strip() for c in line.split("│")] for line in result.stdout.splitlines()]
    rows = [(c[1].split()[0], c[2], c[-2]) for c in cells if len(c) > 6 and c[1]]
    same = [inside for cell, _, inside in rows if cell == "same"]
    assert len(same) == 12 and same.count("yes") >= 9, result.stdout  # a few miss by chance
    assert ("other", "purchase_rate", "no") in rows, result.stdout
    assert "model values inside their 95% prediction interval" in result.stdout
