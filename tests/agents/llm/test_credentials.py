"""Credentials in a base URL: taken out of the settings, kept for sending, masked in any
message, and never echoed by a refusal of the URL."""

import pytest
from pydantic import ValidationError

from recmarket.agents.llm import credentials
from recmarket.agents.llm.api import ProviderError
from recmarket.agents.llm.config import ModelConfig


@pytest.mark.parametrize(
    ("written", "kept", "sent", "query"),
    [
        ("http://h:1/v1", "http://h:1/v1", "http://h:1/v1", {}),
        ("http://u:SECRET1@h/v1", "http://h/v1", "http://u:SECRET1@h/v1", {}),
        ("http://SECRET2@h/v1", "http://h/v1", "http://SECRET2@h/v1", {}),
        (
            "https://h/v1?key=SECRET3&v=2",
            "https://h/v1?v=2",
            "https://h/v1",
            {"v": "2", "key": "SECRET3"},
        ),
        (
            "https://h/v1?access_token=SECRET4",
            "https://h/v1",
            "https://h/v1",
            {"access_token": "SECRET4"},
        ),
    ],
)
def test_a_url_keeps_its_endpoint_and_sends_its_credentials(written, kept, sent, query) -> None:
    model = ModelConfig(name="m", base_url=written)
    assert model.base_url == kept and "SECRET" not in model.model_dump_json()
    assert credentials.sending(model.base_url) == (sent, query)


def test_a_held_secret_is_masked_in_every_failure_and_a_bad_url_is_not_echoed() -> None:
    ModelConfig(name="m", base_url="http://u:SECRET5@h/v1?api-key=SECRET6")
    error = ProviderError("cannot connect to http://u:SECRET5@h/v1?api-key=SECRET6", retryable=True)
    assert "SECRET" not in error.cause and "***" in error.cause
    with pytest.raises(ValidationError) as refused:
        ModelConfig(name="m", base_url="ftp://u:SECRET7@h/v1")
    assert "SECRET7" not in str(refused.value)  # nor its input, where the URL is validated alone
    assert "SECRET7" not in refused.value.errors()[0]["msg"]
