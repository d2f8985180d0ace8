"""Failures you can read, and structured outputs, through HTTP against the loopback fake:
every attempt of a role call is stored; show and export print them; a run that mostly
failed says so; a reply schema goes to an endpoint that honours one."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from recmarket.agents.llm.attempts import first_replies_valid
from recmarket.agents.llm.config import LLMConfig, ModelConfig
from recmarket.analysis.failures import failure_warning
from recmarket.cli import app
from recmarket.config import EpisodeConfig, RunConfig
from recmarket.run.manifest import RunConflict
from recmarket.run.play_options import PlayOptions
from recmarket.run.runner import run
from recmarket.run.store import RunStore
from recmarket.testing.fake_llm import FakeLLM, FaultPlan

KEY_ENV = "RECMARKET_TEST_FAILURES_KEY"


@pytest.fixture(autouse=True)
def api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, "sk-test")


def cell(server: FakeLLM, repair_attempts: int, requests: int = 4, **model) -> RunConfig:
    spec = ModelConfig(name="fake-model", base_url=server.base_url, api_key_env=KEY_ENV, **model)
    return RunConfig(
        condition="no-rep",
        domains=("Video_Games",),
        episodes=EpisodeConfig(requests=requests),
        llm=LLMConfig(models={"m": spec}, roles={"query": "m"}, repair_attempts=repair_attempts),
    )


def play(tmp_path: Path, server: FakeLLM, repair_attempts: int, **model) -> Path:
    out = tmp_path / "run"
    config = cell(server, repair_attempts, **model)
    run(config, out, PlayOptions(llm_cache=tmp_path / "shared.sqlite")).store.close()
    return out


def test_a_failed_call_keeps_its_input_and_every_attempt(tmp_path: Path) -> None:
    with FakeLLM(faults=FaultPlan({"invalid_json": 1.0})) as server:
        out = play(tmp_path, server, repair_attempts=0)
    with RunStore.read(out) as store:
        rows = store.episodes()
        calls = list(store.calls(rows[0]["domain"], rows[0]["ord"]))
        warning = failure_warning(rows, store.db)
    assert {r["failed_role"] for r in rows} == {"query"}
    assert [(c.role, c.output) for c in calls] == [("query", None)]
    assert warning is not None and "4 of 4 episodes (100%) failed: query 4" in warning
    assert "no valid JSON object" in warning and "structured" in warning

    shown = CliRunner().invoke(app, ["show", str(out)])
    assert shown.exit_code == 0, shown.output
    assert "attempt 1 (refused: the reply contains no valid JSON object" in shown.output
    assert "query failed, which ended the episode" in shown.output

    CliRunner().invoke(app, ["export", str(out), "--calls", "--format", "csv"])
    frame = pd.read_csv(out / "calls.csv", keep_default_na=False)
    attempts = json.loads(frame.loc[0, "attempts"])
    assert frame.loc[0, "output"] == "null" and len(attempts) == 1
    assert attempts[0]["error"].startswith("the reply contains no valid JSON object")


def test_first_replies_count_each_call_once_by_whether_its_first_reply_kept_the_contract(
    tmp_path: Path,
) -> None:
    with FakeLLM() as server:
        out = play(tmp_path, server, repair_attempts=1)
    with RunStore.read(out) as store:
        assert first_replies_valid(store.db) == {"query": (4, 4)}


def test_a_repaired_call_shows_the_refused_reply_and_the_reask(tmp_path: Path) -> None:
    with FakeLLM(faults=FaultPlan({"invalid_json": 1.0})) as server:
        out = play(tmp_path, server, repair_attempts=1)
    with RunStore.read(out) as store:
        rows = store.episodes()
        assert not any(r["failed_role"] for r in rows)
        assert failure_warning(rows, store.db) is None
        assert first_replies_valid(store.db) == {"query": (0, 4)}  # the first, not the used
    shown = CliRunner().invoke(app, ["show", str(out)])
    assert "attempt 1 (refused:" in shown.output and "attempt 2 (used):" in shown.output
    assert "re-asked: Your answer could not be used" in shown.output


@pytest.mark.parametrize(
    ("honours", "setting", "sent"),
    [
        (("json_schema", "json_object"), "auto", "json_schema"),
        (("json_object",), "auto", "json_object"),
        ((), "auto", "off"),
        (("json_schema",), "off", "off"),
        ((), "json_object", "json_object"),  # a fixed setting is sent without a probe
    ],
)
def test_the_reply_schema_goes_in_the_form_the_endpoint_honours(
    tmp_path: Path, honours: tuple[str, ...], setting: str, sent: str
) -> None:
    with FakeLLM(formats=honours) as server:
        play(tmp_path, server, repair_attempts=1, structured=setting)
    assert dict(server.formats_seen) == {sent: 4}  # the four query calls


def explain_cell(server: FakeLLM, structured: str, text_replies: str = "sentences") -> RunConfig:
    spec = ModelConfig(
        name="fake-model", base_url=server.base_url, api_key_env=KEY_ENV, structured=structured
    )
    llm = LLMConfig(models={"m": spec}, roles={"explain": "m"}, text_replies=text_replies)
    return cell(server, 1).model_copy(update={"llm": llm})


@pytest.mark.parametrize(
    ("setting", "text_replies", "sent"),
    [("json_schema", "sentences", "json_schema"), ("json_schema", "text", "off")],
)
def test_explanations_come_as_sentences_under_a_schema_and_as_text_without(
    tmp_path: Path, setting: str, text_replies: str, sent: str
) -> None:
    """Under a schema the fake answers in its shape (an array of sentences) and the stored
    explanation is the same text as a plain answer's; with ``text_replies = "text"`` (or
    structured outputs off) no schema is sent and the text is read as it always was."""
    with FakeLLM(formats=("json_schema",)) as server:
        config = explain_cell(server, setting, text_replies)
        run(
            config, tmp_path / "run", PlayOptions(llm_cache=tmp_path / "shared.sqlite")
        ).store.close()
    assert set(server.formats_seen) == {sent}
    with RunStore.read(tmp_path / "run") as store:
        texts = {c.output["text"] for _, _, c in store.all_calls() if c.role == "explain"}
        raw = store.db.execute("SELECT reply FROM llm_attempts").fetchall()
    assert texts and all(t.endswith(".") and not t.startswith("{") for t in texts)
    assert all(r[0].startswith('{"sentences"') == (sent != "off") for r in raw)


def test_a_run_asked_for_plain_text_is_not_resumed_asking_for_sentences(tmp_path: Path) -> None:
    """How the plain-text roles are asked is part of a run's identity: one store never
    holds explanations asked for both ways."""
    with FakeLLM(formats=("json_schema",)) as server:
        text = explain_cell(server, "json_schema", "text")
        run(text, tmp_path / "run", PlayOptions(llm_cache=tmp_path / "shared.sqlite")).store.close()
        with pytest.raises(RunConflict, match="text_replies"):
            run(explain_cell(server, "json_schema"), tmp_path / "run")
