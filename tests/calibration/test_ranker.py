"""The rank-ordered logit recovers the offline logit ranker's parameters from its own runs."""

from pathlib import Path

from recmarket.agents.judgement import Judge
from recmarket.agents.rules.params import RankerParams
from recmarket.calibration.observations import read_observations
from recmarket.calibration.ranker import fit_ranker, ranker_params, top1_agreement
from recmarket.config import RunConfig
from recmarket.embedding import load_embedder
from tests.calibration.conftest import RANKER, simulate

TRUTH = {
    "fit_noise": RANKER["fit_noise"],
    "credence": RANKER["credence"],
    **{f"label_credibility.{k}": v for k, v in RANKER["label_credibility"].items()},
    "prior_records": RANKER["prior_records"],
    "disclosure_weight": RANKER["disclosure_weight"],
    "position_weight": RANKER["position_weight"],
}
# The Rep instruction's share is held fixed by the fit, never fitted: at the run's value
PRIOR = RankerParams(rep_instruction=RANKER["rep_instruction"])


def test_every_ranker_parameter_is_recovered_within_three_standard_errors(simulated) -> None:
    fitted = fit_ranker(simulated[1].rankings, PRIOR)
    assert fitted.converged and fitted.observations == 1800
    for e in fitted.estimates:
        assert e.identified and e.se is not None, e
        assert abs(e.value - TRUTH[e.name]) <= 3 * e.se, e
    assert fitted.log_likelihood > fitted.null_log_likelihood
    defaults = RankerParams()
    assert abs(fitted.value("position_weight") - defaults.position_weight) > 0.02  # data moved it


def test_the_fitted_ranker_is_a_setting_run_accepts_and_agrees_with_its_choices(
    simulated,
) -> None:
    rankings = simulated[1].rankings
    params = ranker_params(fit_ranker(rankings, PRIOR), PRIOR)
    assert params.noise == "gumbel"
    RunConfig.model_validate({"agents": {"ranker": params.model_dump()}})
    chance = sum(1 / len(o.candidates) for o in rankings) / len(rankings)
    assert top1_agreement(rankings, params) > 2 * chance


def test_without_records_the_record_parameters_are_not_identified(tmp_path: Path) -> None:
    cfg = simulate(tmp_path / "norep", "no-rep", requests=120)
    judge = Judge.of(load_embedder(cfg.embedder), cfg.agents.scale)
    observed = read_observations([tmp_path / "norep"], judge, cfg.agents.ranker.long_term_weight)
    fitted = fit_ranker(observed.rankings, RankerParams())
    unidentified = {e.name for e in fitted.estimates if not e.identified}
    assert unidentified == {
        "label_credibility.high",
        "label_credibility.mixed",
        "label_credibility.low",
        "prior_records",
    }
    assert fitted.value("prior_records") == RankerParams().prior_records  # held at the prior
