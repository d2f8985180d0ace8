"""A whole-call deadline: an endpoint that trickles its reply a byte at a time (each read
quick, the whole reply not) stops the run within the model's timeout and its retries, with
the cause named, instead of holding the check and every call for minutes."""

import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from recmarket.cli import app
from recmarket.testing.fake_llm import FakeLLM
from tests.run.test_llm_runs import KEY_ENV, config_file


@pytest.fixture(autouse=True)
def api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, "sk-test")


def test_a_trickling_endpoint_stops_the_run_within_the_deadline(tmp_path: Path) -> None:
    with FakeLLM(trickle=0.05) as server:  # a 300-byte reply takes 15 s, 0.05 s a read
        config = config_file(tmp_path, server, 6, model_extra="timeout = 0.5\nmax_retries = 1")
        start = time.monotonic()
        result = CliRunner().invoke(app, ["run", "--config", str(config), "--out", str(tmp_path)])
        took = time.monotonic() - start
    assert result.exit_code == 4, result.output
    assert "no whole answer within the timeout of 0.5 s, still after 1 retries" in result.output
    assert took < 10  # two attempts of 0.5 s and a backoff, not two 15 s replies
