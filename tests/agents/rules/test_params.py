"""The offline model's parameter tables refuse values that would quietly mean something
else: a range the wrong way round, thresholds out of order, a scale that does not rise, a
misspelt profile; and a config file with one gets one line naming the table and the file."""

import re

import pytest
from pydantic import ValidationError
from typer.testing import CliRunner

from recmarket.agents.rules.params import PlatformParams, RankerParams, ScaleParams, UpdaterParams
from recmarket.agents.rules.user_params import DEFAULT_DECISION, DecisionParams, ReviewParams
from recmarket.cli import app


@pytest.mark.parametrize(
    ("make", "said"),
    [
        (lambda: PlatformParams(exaggeration_lift=(0.5, 0.2)), "low end (0.5) must be at most"),
        (
            lambda: PlatformParams(exaggeration_lift=(-0.1, 0.2)),
            "low end (-0.1) must be at least 0",
        ),
        (lambda: UpdaterParams(mixed_gap=0.6, low_gap=0.3), "mixed_gap (0.6) must be at most"),
        (lambda: ScaleParams(fit_zero=0.8, fit_one=0.8), "fit_zero (0.8) must be below fit_one"),
        (lambda: ReviewParams(gap_sensitivity={"nobody": 1.0}), "unknown profile 'nobody'"),
        (
            lambda: DecisionParams(profiles={"novic": DEFAULT_DECISION["novice_advice"]}),
            "unknown profile 'novic'",
        ),
    ],
    ids=["lift", "negative-lift", "gaps", "scale", "sensitivity", "decision"],
)
def test_a_table_that_would_mean_something_else_is_refused(make, said: str) -> None:
    with pytest.raises(ValidationError, match=re.escape(said)):
        make()


def test_equal_thresholds_and_a_point_lift_are_allowed() -> None:
    assert UpdaterParams(mixed_gap=0.3, low_gap=0.3).low_gap == 0.3  # "mixed" never given
    assert PlatformParams(exaggeration_lift=(0.3, 0.3)).exaggeration_lift == (0.3, 0.3)


@pytest.mark.parametrize(
    ("table", "said"),
    [
        ("[agents.platform]\nexaggeration_lift = [0.5, 0.2]\n", "agents.platform in"),
        ("[agents.update]\nmixed_gap = 0.6\nlow_gap = 0.3\n", "agents.update in"),
        ("[agents.platform]\nexaggeration_lift = [0.5]\n", "exaggeration_lift.1 in"),
    ],
    ids=["reversed-range", "thresholds", "short-range"],
)
def test_a_config_file_with_a_bad_table_gets_one_line_and_exit_2(tmp_path, table, said) -> None:
    config = tmp_path / "bad.toml"
    config.write_text(table)
    args = ["run", "--config", str(config), "--requests", "12", "--out", str(tmp_path / "r")]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert said in result.stderr and str(config) in " ".join(result.stderr.split())


def test_a_mixed_record_worth_more_than_the_prior_is_refused() -> None:
    """Appendix C.4's Mixed is a fault: a credibility above the prior would make it raise
    belief, so the settings name both values."""
    with pytest.raises(ValidationError, match=r"label_credibility.mixed \(0.6\)"):
        RankerParams(label_credibility={"high": 1.0, "mixed": 0.6, "low": 0.0})
    assert RankerParams(label_credibility={"high": 1.0, "mixed": 0.5, "low": 0.0})  # the prior


def test_a_pull_beyond_a_perfect_claim_is_refused() -> None:
    with pytest.raises(ValidationError, match="exaggeration_pull's high end"):
        PlatformParams(exaggeration_pull=(0.5, 1.2))
    with pytest.raises(ValidationError, match="exaggeration_pull's low end"):
        PlatformParams(exaggeration_pull=(0.7, 0.5))
