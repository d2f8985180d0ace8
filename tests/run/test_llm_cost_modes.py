"""Cells at the flex tier and as batch jobs store what a live run stores: a NoRep cell in
batch mode killed while its first job is in progress and resumed (every job submitted
once, failed requests sent again, the calls billed at the batch rate), a LocalRep cell
on a flex tier that answers busy 30% of the time, and a provider with no batch jobs
refused before anything is sent."""

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from recmarket.cli import app
from recmarket.config_file import build_config
from recmarket.embedding.cache import default_cache_dir
from recmarket.report.bill import billed as bill
from recmarket.run.estimate import cell_estimate
from recmarket.run.store import RunStore
from recmarket.testing.fake_llm import FakeLLM, FaultPlan
from tests.run.records import records

KEY_ENV = "RECMARKET_TEST_COST_KEY"
PRICES = {"input_price": 1.0, "output_price": 2.0, "tier_prices": {"batch": 0.5, "flex": 0.5}}


@pytest.fixture(scope="module", autouse=True)
def api_key() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(KEY_ENV, "sk-test-cost")
        yield


def config(tmp: Path, url: str, condition: str, **llm: object) -> Path:
    """A settings file: one priced fake model for every role, ``llm`` in its [llm] table."""
    model = {"name": "fake-model", "base_url": url, "api_key_env": KEY_ENV, **PRICES}
    model |= llm.pop("model", {})  # type: ignore[arg-type]
    settings = {
        "condition": condition,
        "domains": ["Video_Games"],
        "seed": 4,
        "episodes": {"requests": 8, "users_per_profile": 1},
        "llm": {"models": {"main": model}, "roles": {"default": "main"}, **llm},
    }
    path = tmp / f"{condition}-{len(list(tmp.iterdir()))}.yaml"  # JSON is YAML
    path.write_text(json.dumps(settings))
    return path


def command(settings: Path, out: Path) -> list[str]:
    return ["run", "--config", str(settings), "--out", str(out), "--llm-cache", str(out) + ".calls"]


def play(settings: Path, out: Path) -> dict:
    result = CliRunner().invoke(app, [*command(settings, out), "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.output[result.output.index("{") :])


@pytest.mark.slow  # end to end: a live run, a batch run killed while polling, its resume
def test_a_batch_norep_cell_killed_while_polling_resumes_to_the_live_records(
    tmp_path: Path,
) -> None:
    with FakeLLM(faults=FaultPlan(seed=3, rates={"invalid_json": 0.2})) as server:
        play(config(tmp_path, server.base_url, "no-rep"), tmp_path / "live")
    with FakeLLM(
        faults=FaultPlan(seed=3, rates={"invalid_json": 0.2}),
        batch_seconds=1.5,
        batch_fail_rate=0.3,
    ) as server:
        settings = config(tmp_path, server.base_url, "no-rep", mode="batch", batch_poll=0.2)
        out = tmp_path / "batch"
        killed = subprocess.Popen(
            [sys.executable, "-m", "recmarket", *command(settings, out)],
            env=os.environ,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 60
        while server.batches.created == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        killed.kill()
        killed.wait()
        assert server.batches.created == 1  # killed while its first job was in progress
        resumed = play(settings, out)
        created = server.batches.created
        retried = sum(n > 1 for n in server.batches.submitted.values())
    assert records(out) == records(tmp_path / "live")
    store = RunStore.read(out)
    try:
        jobs = store.db.execute("SELECT state, COUNT(*) FROM llm_batches GROUP BY state")
        assert dict(jobs.fetchall()) == {"read": created}  # each job submitted once
    finally:
        store.close()
    assert retried > 0  # the failed requests went in later jobs
    ledger = resumed["ledger"]
    assert all(set(row["tiers"]) == {"batch"} for row in ledger)
    cost = sum(row["cost"] for row in ledger)
    at_batch_rate = sum(
        r["prompt_tokens_sent"] * 0.5 + r["completion_tokens"] * 1.0 for r in ledger
    )
    assert cost == pytest.approx(at_batch_rate / 1e6)


@pytest.mark.slow  # end to end: a live LocalRep run and one on a busy flex tier
def test_a_localrep_cell_on_a_busy_flex_tier_has_the_live_records(tmp_path: Path) -> None:
    with FakeLLM() as server:
        play(config(tmp_path, server.base_url, "local-rep"), tmp_path / "live")
    with FakeLLM(flex_busy=0.3, faults=FaultPlan(seed=5, retry_after=0.01)) as server:
        flex = {"service_tier": "flex", "max_retries": 1}
        found = play(config(tmp_path, server.base_url, "local-rep", model=flex), tmp_path / "flex")
    assert records(tmp_path / "flex") == records(tmp_path / "live")
    ledger = found["ledger"]
    assert sum(row["busy"] for row in ledger) > 0  # the tier was busy, and waited out
    assert all(set(row["tiers"]) == {"flex"} for row in ledger)


def test_batch_mode_at_a_provider_without_batch_jobs_is_refused_before_anything_is_sent(
    tmp_path: Path,
) -> None:
    flags = ["run", "--backend", "llm", "--llm-model", "deepseek-chat", "--llm-mode", "batch"]
    flags += ["--llm-base-url", "https://api.deepseek.com", "--llm-api-key-env", KEY_ENV]
    flags += ["--condition", "no-rep", "--out", str(tmp_path / "run")]
    result = CliRunner().invoke(app, flags)
    assert result.exit_code != 0
    said = [line for line in result.output.splitlines() if line.strip()]
    assert len(said) == 1 and "deepseek" in said[0] and "--llm-mode live" in said[0]


def answer_folder(folder: Path, server: FakeLLM, stop: threading.Event) -> None:
    """What ``vllm run-batch`` does with each job file (as ``FolderBatches.command`` runs
    it): every line answered, written beside it in the OpenAI Batch output format, whole."""
    while not stop.is_set():
        for job in folder.glob("*.jsonl"):
            out = job.with_name(job.name.replace(".jsonl", ".out.jsonl"))
            if job.name.endswith(".out.jsonl") or out.exists():
                continue
            lines = []
            for line in job.read_text().splitlines():
                task = json.loads(line)
                status, _, body = server.respond(task["body"])
                response = {"status_code": status, "body": body}
                lines.append(json.dumps({"custom_id": task["custom_id"], "response": response}))
            part = out.with_name(out.name + ".part")  # written whole, then renamed
            part.write_text("\n".join(lines) + "\n")
            part.replace(out)
        time.sleep(0.05)


@pytest.mark.slow  # end to end: a live run, and one whose jobs a stand-in for vLLM answers
def test_batch_jobs_in_a_folder_answered_as_vllm_run_batch_does_give_the_live_records(
    tmp_path: Path,
) -> None:
    with FakeLLM(faults=FaultPlan(seed=2, rates={"fenced": 0.3})) as server:
        play(config(tmp_path, server.base_url, "platform-centric"), tmp_path / "live")
        folder, stop = tmp_path / "jobs", threading.Event()
        batched = config(
            tmp_path, server.base_url, "platform-centric", mode="batch", batch_dir=str(folder)
        )
        vllm = threading.Thread(target=answer_folder, args=(folder, server, stop))
        vllm.start()
        try:
            found = play(batched, tmp_path / "folder")
        finally:
            stop.set()
            vllm.join()
    assert records(tmp_path / "folder") == records(tmp_path / "live")
    assert all(set(row["tiers"]) == {"batch"} for row in found["ledger"])
    jobs = [job for job in folder.glob("*.jsonl") if not job.name.endswith(".out.jsonl")]
    body = json.loads(jobs[0].read_text().splitlines()[0])
    assert body["url"] == "/v1/chat/completions" and body["body"]["model"] == "fake-model"


@pytest.mark.slow  # end to end: a 48-request LocalRep run, then its estimate replayed
def test_a_scripted_runs_bill_is_within_5_percent_of_the_estimate_from_its_pilot(
    tmp_path: Path,
) -> None:
    with FakeLLM(faults=FaultPlan(seed=1, rates={"invalid_json": 0.1})) as server:
        settings = config(tmp_path, server.base_url, "local-rep")
        data = json.loads(settings.read_text())
        data["episodes"]["requests"] = 48
        settings.write_text(json.dumps(data))
        play(settings, tmp_path / "run")
    cfg = build_config(settings, {}, {})
    paid = bill(tmp_path / "run", cfg)
    estimate = cell_estimate(cfg, default_cache_dir(), pilot=Path(str(tmp_path / "run") + ".calls"))
    estimated = sum(r.options["cached-input"] or 0.0 for r in estimate.roles)
    assert sum(n for n, _ in paid.values()) == pytest.approx(
        sum(r.calls for r in estimate.roles), rel=0.1
    )
    assert sum(cost for _, cost in paid.values()) == pytest.approx(estimated, rel=0.05)
