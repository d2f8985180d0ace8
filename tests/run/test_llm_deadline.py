"""A whole-call deadline: an endpoint that trickles its reply a byte at a time (each read
quick, the whole reply not) stops the run within the model's timeout and its retries, with
the cause named, instead of holding the check and every call for minutes."""

import re
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from recmarket.agents.llm import pace
from recmarket.cli import app
from recmarket.testing.fake_llm import FakeLLM
from tests.run.test_llm_runs import KEY_ENV, config_file


@pytest.fixture(autouse=True)
def api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, "sk-test")


@pytest.mark.slow  # end to end; keeps the default selection under 4 minutes
def test_a_trickling_endpoint_stops_the_run_within_the_deadline(tmp_path: Path) -> None:
    with FakeLLM(trickle=0.05) as server:  # a 300-byte reply takes 15 s, 0.05 s a read
        config = config_file(tmp_path, server, 6, model_extra="timeout = 0.5\nmax_retries = 1")
        start = time.monotonic()
        result = CliRunner().invoke(app, ["run", "--config", str(config), "--out", str(tmp_path)])
        took = time.monotonic() - start
    assert result.exit_code == 4, result.output
    said = " ".join(result.output.split())
    assert "no whole answer within the deadline of 0.5 s (the model's timeout setting)" in said
    assert "still after 1 retries" in said
    assert took < 10  # two attempts of 0.5 s and a backoff, not two 15 s replies


def query_run(tmp_path: Path, server: FakeLLM, model_extra: str = "") -> list[str]:
    """A run whose only LLM role is the query (a call a request)."""
    tmp_path.mkdir()
    config = config_file(tmp_path, server, 3, model_extra=f"max_tokens = 64\n{model_extra}")
    text = config.read_text().replace('default = "m"', 'query = "m"')
    config.write_text(text)
    return ["run", "--config", str(config), "--out", str(tmp_path / "run")]


@pytest.mark.slow  # end to end: keeps the default selection under 4 minutes
def test_a_slow_endpoint_gets_a_deadline_sized_to_its_measured_pace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At 20 tokens a second a query answer takes about a second: a fixed deadline of half
    a second stops the run, the deadline sized from the measured pace does not."""
    monkeypatch.setattr(pace, "FLOOR", 0.1)  # let the pace, not the floor, set it
    with FakeLLM(token_seconds=0.05) as server:
        fixed = CliRunner().invoke(
            app, query_run(tmp_path / "a", server, "timeout = 0.5\nmax_retries = 1")
        )
        sized = CliRunner().invoke(app, query_run(tmp_path / "b", server))
    assert fixed.exit_code == 4 and "deadline of 0.5 s" in fixed.output
    assert "set timeout (seconds)" not in fixed.output  # the setting was the user's own
    assert sized.exit_code == 0, sized.output


def test_llm_check_prints_the_pace_and_the_deadline_it_gives(tmp_path: Path) -> None:
    with FakeLLM(token_seconds=0.01) as server:
        config = config_file(tmp_path, server, 3)
        result = CliRunner().invoke(app, ["llm", "check", "--config", str(config)])
    assert result.exit_code == 0, result.output
    said = " ".join(result.output.split())
    found = re.search(r"pace: ([\d.]+) tokens/s written and \d+ read; deadline sized", said)
    assert found and 50 < float(found.group(1)) <= 110, result.output
