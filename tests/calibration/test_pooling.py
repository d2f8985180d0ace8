"""Calibration refuses what it cannot fit: runs of different market shapes, a run given twice,
a run with nothing to fit, a likelihood that is not finite, and model runs pooled with
offline ones unless asked; "identified" needs a converged fit and a finite standard error."""

import math
import shutil
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from recmarket.agents.judgement import Judge
from recmarket.agents.rules.params import OfflineParams
from recmarket.calibration import calibrate as calibrate_module
from recmarket.calibration.calibrate import fit_observations
from recmarket.calibration.mle import Fitted, fit_parameters
from recmarket.calibration.observations import read_observations
from recmarket.calibration.pooling import CalibrationRefused
from recmarket.cli import app
from recmarket.config import EpisodeConfig, MarketConfig, RunConfig
from recmarket.embedding import load_embedder
from recmarket.run.runner import run
from recmarket.run.store import RunStore
from recmarket.testing.fake_llm import FakeLLM
from tests.fixtures import fake_llm_pilot, lock_held_elsewhere

runner = CliRunner()


def offline_run(out: Path, **market) -> Path:
    cfg = RunConfig(
        domains=("Video_Games",),
        episodes=EpisodeConfig(requests=24),
        market=MarketConfig(**market),
    )
    run(cfg, out).store.close()
    return out


@pytest.fixture(scope="module")
def six(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return offline_run(tmp_path_factory.mktemp("n6") / "run")


def calibrate_cli(*args: str | Path) -> object:
    return runner.invoke(app, ["calibrate", *map(str, args)])


def flat(text: str) -> str:
    """The one line the console wrapped."""
    return " ".join(text.split())


def test_runs_of_different_market_shapes_are_refused_naming_the_run(six, tmp_path) -> None:
    twelve = offline_run(tmp_path / "n12", n_platforms=12, shortlist_k=5)
    result = calibrate_cli(six, twelve, "--out", tmp_path / "p.toml")
    assert result.exit_code == 2
    line = flat(result.stderr)
    assert str(twelve) in line and "N=12, K=5, J=5" in line and "N=6, K=3, J=3" in line
    assert not (tmp_path / "p.toml").exists()  # nothing written


def test_a_run_given_twice_or_copied_is_refused(six, tmp_path) -> None:
    twice = calibrate_cli(six, six, "--out", tmp_path / "p.toml")
    assert twice.exit_code == 2 and "the same run as" in twice.stderr
    copy = tmp_path / "copy"
    shutil.copytree(six, copy)
    copied = calibrate_cli(six, copy, "--out", tmp_path / "p.toml")
    assert copied.exit_code == 2 and "would count twice" in flat(copied.stderr)


def test_a_run_without_episodes_is_refused(tmp_path) -> None:
    empty = tmp_path / "empty"
    RunStore.open(empty, RunConfig()).close()
    result = calibrate_cli(empty, "--out", tmp_path / "p.toml")
    assert result.exit_code == 2 and "no finished episode to calibrate from" in result.stderr
    assert not (tmp_path / "p.toml").exists()


def test_model_runs_are_pooled_with_offline_ones_only_when_asked(
    six, tmp_path, monkeypatch
) -> None:
    monkeypatch.setenv("RECMARKET_TEST_KEY", "sk-test")
    with FakeLLM() as server:
        fake_llm_pilot(server, tmp_path / "pilot", tmp_path / "calls.sqlite", 24)
    refused = calibrate_cli(six, tmp_path / "pilot", "--out", tmp_path / "p.toml")
    assert refused.exit_code == 2
    line = flat(refused.stderr)
    assert "model fake" in line and "offline rules" in line and "--pool-backends" in line
    pooled = calibrate_cli(six, tmp_path / "pilot", "--out", tmp_path / "p.toml", "--pool-backends")
    assert pooled.exit_code == 0, pooled.output
    assert "pooled runs answered by different backends" in pooled.stderr


def test_a_likelihood_that_is_not_finite_is_refused(six, monkeypatch) -> None:
    def broken(observations, prior) -> Fitted:
        return Fitted((), float("nan"), -10.0, len(observations), True)

    monkeypatch.setattr(calibrate_module, "fit_ranker", broken)
    with pytest.raises(CalibrationRefused, match="ranker log-likelihood is nan"):
        calibrate_module.calibrate([six])


def test_fit_observations_alone_refuses_a_non_finite_decision_fit(six, monkeypatch) -> None:
    def broken(observations, prior, credence) -> dict[str, Fitted]:
        return {"novice_advice": Fitted((), -math.inf, -10.0, 5, True)}

    cfg = RunConfig()
    judge = Judge.of(load_embedder(cfg.embedder), cfg.agents.scale)
    observations = read_observations([six], judge, cfg.agents.ranker.long_term_weight)
    monkeypatch.setattr(calibrate_module, "fit_decisions", broken)
    with pytest.raises(CalibrationRefused, match=r"decision\.novice_advice log-likelihood is -inf"):
        fit_observations(observations, OfflineParams(), [str(six)])


class Quadratic:
    """log L = -(a - centre)^2 n: its optimum is at ``centre`` (or the nearer bound)."""

    def __init__(self, centre: float, curvature: float = 50.0) -> None:
        self.centre, self.curvature = centre, curvature

    def log_likelihood(self, values: dict[str, float]) -> float:
        return -self.curvature * (values["a"] - self.centre) ** 2

    def null_log_likelihood(self) -> float:
        return -100.0

    def identified(self) -> dict[str, bool]:
        return {"a": True, "b": False}


def test_identified_means_a_converged_finite_fit_with_a_finite_standard_error() -> None:
    bounds = {"a": (0.0, 1.0), "b": (None, None)}
    inside = fit_parameters(Quadratic(0.4), 10, ["a", "b"], {"a": 0.5, "b": 2.0}, bounds)
    a, b = inside.estimates
    assert a.identified and a.fitted and a.se is not None and np.isfinite(a.se)
    assert a.value == pytest.approx(0.4, abs=1e-4)
    assert not b.identified and not b.fitted and b.value == 2.0  # kept: the data cannot tell
    on_bound = fit_parameters(Quadratic(1.7), 10, ["a"], {"a": 0.5}, {"a": (0.0, 1.0)})
    (edge,) = on_bound.estimates
    assert edge.fitted and not edge.identified and edge.value == pytest.approx(1.0)


def test_a_calibration_into_a_directory_another_process_writes_is_refused(six, tmp_path) -> None:
    with lock_held_elsewhere(tmp_path) as pid:
        result = calibrate_cli(six, "--out", tmp_path / "p.toml")
    assert result.exit_code == 2
    assert f"another recmarket process (pid {pid})" in flat(result.stderr)
    assert not (tmp_path / "p.toml").exists()
