"""recmarket calibrate: on a simulated run, and on a pilot through the loopback fake LLM."""

import json
import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from recmarket.agents.rules.params import OfflineParams, RankerParams
from recmarket.calibration.calibrate import calibrate
from recmarket.cli import app
from recmarket.config import RunConfig
from recmarket.report.prediction import check_predictions
from recmarket.run.runner import run
from recmarket.run.store import RunStore
from recmarket.testing.fake_llm import FakeLLM
from tests.fixtures import fake_llm_pilot, lock_held_elsewhere

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
    # offline cells, whose agents are known, through the check's own function: the command
    # takes model runs only
    # the fit holds the Rep instruction's share fixed: at the simulated run's value
    prior = OfflineParams(ranker=RankerParams(rep_instruction=RANKER["rep_instruction"]))
    rows = check_predictions(calibrate([simulated[0]], prior).params, [same, other], replicates=8)
    inside = [r.inside for r in rows if r.cell.startswith("same")]
    assert len(inside) == 12 and sum(inside) >= 9, rows  # a few miss by chance
    assert [
        r.inside for r in rows if r.cell.startswith("other") and r.metric == "any_purchase"
    ] == [False]


def test_the_check_refuses_a_fitted_run_an_offline_run_and_a_run_being_written(
    tmp_path: Path,
) -> None:
    tiny = RunConfig.model_validate({"domains": ["Video_Games"], "episodes": {"requests": 12}})
    fitted, offline = tmp_path / "fitted", tmp_path / "offline"
    for out in (fitted, offline):
        run(tiny.model_copy(update={"seed": len(out.name)}), out).store.close()
    args = ["calibrate", str(fitted), "--out", str(tmp_path / "p.toml"), "--check"]
    for checked, says in [
        (fitted, "one of the calibrated runs"),
        (offline, "an offline run; --check compares the calibrated offline agents with a model"),
    ]:
        result = runner.invoke(app, [*args, str(checked)])
        assert result.exit_code == 2 and says in " ".join(result.stderr.split())
        assert len(result.stderr.strip().splitlines()) <= 2 and not (tmp_path / "p.toml").exists()
    with lock_held_elsewhere(offline) as pid:
        result = runner.invoke(app, ["calibrate", str(offline)])
    said = " ".join(result.stderr.split())
    assert result.exit_code == 2 and f"(pid {pid}) is still writing this run" in said
