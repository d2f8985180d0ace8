"""Runs the stores can answer whole need no endpoint: a finished LLM run, a cell whose calls
another cell made, and a finished reproduce rerun with the endpoint down, exit 0 with the
same records; a run with one call to make checks the endpoint first, as before."""

import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from recmarket.cli import app
from recmarket.testing.fake_llm import FakeLLM
from tests.run.test_llm_runs import (
    KEY_ENV,
    config_file,
    experiment,
    llm_flags,
    reproduce_args,
)

runner = CliRunner()


@pytest.fixture(autouse=True)
def api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, "sk-test")


def episodes(store: Path) -> list[tuple]:
    with sqlite3.connect(store) as db:
        return db.execute("SELECT * FROM episodes ORDER BY domain, ord").fetchall()


def test_a_run_the_stores_answer_whole_needs_no_endpoint(tmp_path: Path) -> None:
    cache = tmp_path / "calls.sqlite"
    with FakeLLM() as server:
        first = runner.invoke(app, llm_flags(server, cache, tmp_path / "a", 6))
        assert first.exit_code == 0, first.output
        sent = server.total
    # the server is gone: every answer is in the stores
    again = runner.invoke(app, llm_flags(server, cache, tmp_path / "a", 6))
    assert again.exit_code == 0, again.output
    other = runner.invoke(app, llm_flags(server, cache, tmp_path / "b", 6))
    assert other.exit_code == 0, other.output  # another --out, the same calls: from the cache
    assert episodes(tmp_path / "b" / "run.sqlite") == episodes(tmp_path / "a" / "run.sqlite")
    assert server.total == sent

    config = config_file(tmp_path, server, 12, model_extra="max_retries = 0")
    args = ["run", "--config", str(config), "--out", str(tmp_path / "c"), "--llm-cache", str(cache)]
    more = runner.invoke(app, args)
    assert more.exit_code == 4  # calls to make: the check finds the endpoint down
    assert "cannot connect" in more.output and "Traceback" not in more.output
    with sqlite3.connect(tmp_path / "c" / "run.sqlite") as db:
        failed = db.execute("SELECT COUNT(*) FROM episodes WHERE failed_role IS NOT NULL")
        assert failed.fetchone()[0] == 0  # infrastructure is not an episode outcome


@pytest.mark.slow  # end to end: a reproduce, then its rerun
def test_a_finished_reproduce_reruns_with_the_endpoint_down(tmp_path: Path) -> None:
    with FakeLLM() as server:
        spec = experiment(tmp_path, server)
        first = runner.invoke(app, reproduce_args(spec, tmp_path))
        assert first.exit_code == 0, first.output
    stores = sorted((tmp_path / "r" / "cells").glob("*/run.sqlite"))
    before = [episodes(s) for s in stores]
    again = runner.invoke(app, reproduce_args(spec, tmp_path))
    assert again.exit_code == 0, again.output
    assert [episodes(s) for s in stores] == before
