"""The rank-ordered logit recovers the offline logit ranker's parameters from its own runs."""

from pathlib import Path

import pytest

from recmarket.agents.rules.judgement import Judge
from recmarket.agents.rules.params import RankerParams
from recmarket.calibration.observations import read_observations
from recmarket.calibration.ranker import fit_ranker, ranker_params, top1_agreement
from recmarket.config import RunConfig
from recmarket.embedding import load_embedder
from recmarket.run.runner import run

TRUE = {
    "noise": "gumbel",
    "fit_noise": 0.08,
    "credence": 0.7,
    "prior_records": 3.0,
    "label_credibility": {"high": 0.9, "mixed": 0.4, "low": 0.1},
    "disclosure_weight": 0.05,
    "position_weight": -0.04,
}


def simulated(out: Path, condition: str, requests: int = 600) -> RunConfig:
    cfg = RunConfig.model_validate(
        {
            "condition": condition,
            "domains": ["Video_Games", "Musical_Instruments"],
            "episodes": {"requests": requests},
            "agents": {"ranker": TRUE},
        }
    )
    run(cfg, out).store.close()
    return cfg


@pytest.fixture(scope="module")
def local_rep(tmp_path_factory: pytest.TempPathFactory):
    out = tmp_path_factory.mktemp("local-rep")
    cfg = simulated(out, "local-rep")
    judge = Judge.of(load_embedder(cfg.embedder), cfg.agents.scale)
    return read_observations([out], judge)


def test_every_ranker_parameter_is_recovered_within_three_standard_errors(local_rep) -> None:
    fitted = fit_ranker(local_rep.rankings, RankerParams())
    assert fitted.converged and fitted.observations == 1200
    truth = {
        "fit_noise": 0.08,
        "credence": 0.7,
        "label_credibility.high": 0.9,
        "label_credibility.mixed": 0.4,
        "label_credibility.low": 0.1,
        "prior_records": 3.0,
        "disclosure_weight": 0.05,
        "position_weight": -0.04,
    }
    for e in fitted.estimates:
        assert e.identified and e.se is not None, e
        assert abs(e.value - truth[e.name]) <= 3 * e.se, e
    assert fitted.log_likelihood > fitted.null_log_likelihood
    # the defaults the estimate started from are far off: the data moved it
    assert abs(fitted.value("position_weight")) > 0.02


def test_the_fitted_ranker_is_a_setting_run_accepts_and_agrees_with_held_out_choices(
    local_rep,
) -> None:
    fitted = fit_ranker(local_rep.rankings, RankerParams())
    params = ranker_params(fitted, RankerParams())
    assert params.noise == "gumbel"
    RunConfig.model_validate({"agents": {"ranker": params.model_dump()}})
    chance = sum(1 / len(o.candidates) for o in local_rep.rankings) / len(local_rep.rankings)
    assert top1_agreement(local_rep.rankings, params) > 2 * chance


def test_without_records_the_record_parameters_are_not_identified(tmp_path: Path) -> None:
    cfg = simulated(tmp_path / "norep", "no-rep", requests=240)
    judge = Judge.of(load_embedder(cfg.embedder), cfg.agents.scale)
    fitted = fit_ranker(read_observations([tmp_path / "norep"], judge).rankings, RankerParams())
    unidentified = {e.name for e in fitted.estimates if not e.identified}
    assert unidentified == {
        "label_credibility.high",
        "label_credibility.mixed",
        "label_credibility.low",
        "prior_records",
    }
    defaults = RankerParams()
    assert fitted.value("prior_records") == defaults.prior_records  # held at the prior
