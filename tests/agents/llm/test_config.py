"""A model's endpoint as the OpenAI SDK finds it: a setting first, then $OPENAI_BASE_URL,
then OpenAI's own URL."""

from pathlib import Path

import pytest
from typer.testing import CliRunner

from recmarket.agents.llm.config import OPENAI_URL, ModelConfig
from recmarket.cli import app
from recmarket.testing.fake_llm import FakeLLM


def test_the_environment_names_the_endpoint_no_setting_names(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert ModelConfig(name="m").base_url == OPENAI_URL
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    assert ModelConfig(name="m").base_url == "http://127.0.0.1:9/v1"
    set_here = ModelConfig(name="m", base_url="http://10.0.0.1:8000/v1")
    assert set_here.base_url == "http://10.0.0.1:8000/v1"  # a setting or flag wins


def test_a_url_from_the_environment_is_checked_and_loses_its_credentials(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://user:secret@127.0.0.1:9/v1")
    assert "secret" not in ModelConfig(name="m").base_url
    monkeypatch.setenv("OPENAI_BASE_URL", "file:///tmp/x")
    with pytest.raises(ValueError, match="not an http"):
        ModelConfig(name="m")


def test_llm_check_reaches_the_server_the_environment_names(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with FakeLLM() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        result = CliRunner().invoke(app, ["llm", "check", "--llm-model", "fake-model"])
        assert result.exit_code == 0, result.output
        assert server.checks > 0
        assert f"at {server.base_url}" in result.output
