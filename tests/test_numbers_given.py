"""A number is written as a number: a quoted number, a boolean, or a decimal where a count
belongs is refused with the setting's place, in the settings as in a variant's parameters;
a whole number where a decimal belongs is a number as written."""

import pytest
from pydantic import ValidationError

from recmarket.config import RunConfig


@pytest.mark.parametrize(
    ("given", "place", "said"),
    [
        ({"seed": "7"}, ("seed",), "'7' is a string, not a number"),
        ({"market": {"n_platforms": True}}, ("market", "n_platforms"), "true is a boolean"),
        ({"market": {"n_platforms": 6.0}}, ("market", "n_platforms"), "6.0 is a decimal"),
        ({"market": {"claim_intensities": [1, "2"]}}, ("market", "claim_intensities", 1), "'2'"),
        ({"episodes": {"requests": "24"}}, ("episodes", "requests"), "'24' is a string"),
    ],
)
def test_a_number_written_otherwise_is_refused_at_its_place(given, place, said) -> None:
    with pytest.raises(ValidationError) as refused:
        RunConfig.model_validate(given)
    [error] = refused.value.errors()
    assert error["loc"] == place and said in error["msg"]


@pytest.mark.parametrize(
    ("params", "said"),
    [
        ({"newcomer_low": "2"}, "params.newcomer_low: '2' is a string, not a number"),
        ({"newcomer_low": 2.0}, "params.newcomer_low: 2.0 is a decimal, not a whole number"),
        ({"newcomer_low": True}, "params.newcomer_low: true is a boolean, not a number"),
    ],
)
def test_a_variants_parameter_written_otherwise_is_refused(params, said) -> None:
    given = {"market": {"reputation": {"mechanism": "beta", "params": params}}}
    with pytest.raises(ValidationError, match=said):
        RunConfig.model_validate(given)


def test_numbers_written_as_numbers_are_read() -> None:
    cfg = RunConfig.model_validate(
        {
            "seed": 7,
            "market": {
                "rho": 1,
                "reputation": {"mechanism": "beta", "params": {"newcomer_low": 2}},
            },
        }
    )
    assert cfg.seed == 7 and cfg.market.rho == 1.0
