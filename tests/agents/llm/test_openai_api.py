"""What an SDK failure means for the run: a URL no retry can mend is said at once, and a
base URL that is not HTTP is refused in the settings before anything is sent."""

import openai
import pytest
from pydantic import ValidationError

from recmarket.agents.llm.config import ModelConfig
from recmarket.agents.llm.openai_api import provider_error
from recmarket.agents.llm.transport import http


def connection_error(cause: Exception) -> openai.APIConnectionError:
    error = openai.APIConnectionError(request=http.Request("POST", "http://x/v1"))
    error.__cause__ = cause
    return error


def test_a_url_the_client_cannot_use_is_not_retried() -> None:
    unusable = provider_error(connection_error(http.UnsupportedProtocol("file://")))
    assert not unusable.retryable and "the base URL cannot be used" in unusable.cause
    refused = provider_error(connection_error(ConnectionRefusedError("refused")))
    assert refused.retryable and "cannot connect" in refused.cause  # the endpoint may come up


@pytest.mark.parametrize("url", ["file:///tmp/models", "localhost:8080/v1", "http:///v1"])
def test_a_base_url_that_is_not_http_with_a_host_is_refused(url: str) -> None:
    with pytest.raises(ValidationError, match="is not an http:// or https:// URL with a host"):
        ModelConfig(name="m", base_url=url)
    assert ModelConfig(name="m", base_url="http://127.0.0.1:8080/v1").base_url
