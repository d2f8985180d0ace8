"""Runs that start and finish against endpoints that fail as real ones do: random 500s and
429s on 30% of all attempts (checks and probes included), every first attempt failing (a
flaky proxy), a 429 with Retry-After on every first attempt. Each exits 0 with the records
of a fault-free run."""

from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from recmarket.cli import app
from recmarket.testing.fake_llm import FakeLLM, FaultPlan
from tests.run.records import records

KEY_ENV = "RECMARKET_TEST_UNRELIABLE_KEY"
REQUESTS = 8


@pytest.fixture(scope="module", autouse=True)
def api_key() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(KEY_ENV, "sk-test")
        yield


def play(server: FakeLLM, out: Path) -> dict:
    flags = ["run", "--backend", "llm", "--llm-model", "fake-model"]
    flags += ["--llm-base-url", server.base_url, "--llm-api-key-env", KEY_ENV]
    flags += ["--condition", "local-rep", "--domain", "Video_Games", "--seed", "2"]
    flags += ["--requests", str(REQUESTS), "--users-per-profile", "1", "--out", str(out)]
    result = CliRunner().invoke(app, flags)
    assert result.exit_code == 0, result.output
    return records(out)


@pytest.fixture(scope="module")
def fault_free(tmp_path_factory: pytest.TempPathFactory) -> dict:
    with FakeLLM() as server:
        return play(server, tmp_path_factory.mktemp("clean") / "run")


@pytest.mark.slow  # end to end: three LLM runs through an unreliable endpoint
@pytest.mark.parametrize(
    "unreliable",
    [
        pytest.param({"fault_rate": 0.3}, id="30% random 500s and 429s"),
        pytest.param({"fail_first": 500}, id="every first attempt a 500"),
        pytest.param({"fail_first": 429}, id="every first attempt a 429 with Retry-After"),
    ],
)
def test_a_run_finishes_with_the_fault_free_records(
    tmp_path: Path, fault_free: dict, unreliable: dict
) -> None:
    with FakeLLM(faults=FaultPlan(seed=7, retry_after=0.01), **unreliable) as server:
        found = play(server, tmp_path / "run")
        refused = sum(server.seen.values()) - server.total - server.checks
    assert refused > 0  # the endpoint did fail, checks and role calls alike
    assert found == fault_free
