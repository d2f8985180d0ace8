"""The full protocol through HTTP against an OpenAI-compatible server on loopback."""

import hashlib
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from recmarket.agents.llm.client import EndpointFailure
from recmarket.agents.llm.config import LLMConfig, ModelConfig
from recmarket.catalogue.payloads import PAYLOAD_FAMILIES
from recmarket.catalogue.policies import POLICIES, policy
from recmarket.cli import app
from recmarket.config import EpisodeConfig, MarketConfig, RunConfig
from recmarket.run.play_options import PlayOptions
from recmarket.run.runner import run
from recmarket.run.store import RunStore
from recmarket.testing.fake_llm import TRANSIENT_FAULTS, FakeLLM, FaultPlan
from recmarket.testing.fake_replies import CONTENT_FAULTS
from tests.fixtures import completion_body

KEY_ENV, KEY = "RECMARKET_TEST_KEY", "sk-test-do-not-store-7f3a9c"


@pytest.fixture(autouse=True)
def api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, KEY)


def llm(server: FakeLLM, roles: dict[str, str] | None = None, **model) -> LLMConfig:
    spec = {"timeout": 0.4, "max_retries": 5, **model}
    return LLMConfig(
        models={
            "m": ModelConfig(
                name="fake-model", base_url=server.base_url, api_key_env=KEY_ENV, **spec
            )
        },
        roles=roles or {"default": "m"},
        repair_attempts=1,
    )


def cell(server: FakeLLM, condition: str, requests: int = 24, **kw) -> RunConfig:
    return RunConfig(
        condition=condition,
        domains=("Video_Games",),
        episodes=EpisodeConfig(requests=requests),
        llm=llm(server, **kw),
    )


@pytest.mark.slow  # end to end, three whole LLM runs: runs in .ci/run with -m slow
@pytest.mark.parametrize("condition", ["platform-centric", "no-rep", "local-rep"])
def test_all_conditions_complete_under_twenty_percent_faults(
    tmp_path: Path, condition: str
) -> None:
    kinds = CONTENT_FAULTS + TRANSIENT_FAULTS
    plan = FaultPlan(rates={k: 0.2 / len(kinds) for k in kinds}, hang_seconds=1.0, seed=3)
    with FakeLLM(faults=plan) as server:
        result = run(
            cell(server, condition, requests=36),
            tmp_path / "r",
            PlayOptions(llm_cache=tmp_path / "shared.sqlite"),
        )
    rows = result.store.episodes()
    assert len(rows) == 36  # nothing lost
    retries = sum(u.retries for u in result.ledger.rows.values())
    assert retries > 0  # 429s, 500s and hangs were retried
    with sqlite3.connect(tmp_path / "r" / "run.sqlite") as db:
        reasks = db.execute(
            "SELECT COUNT(*) FROM llm_calls WHERE json_array_length(messages) > 2"
        ).fetchone()[0]
    assert reasks > 0  # content faults were met and re-asked ...
    assert not any(r["failed_role"] for r in rows)  # ... and every one was repaired
    purchases = [r for r in rows if r["any_purchase"]]
    assert purchases, "the fake user buys the first option"
    if condition == "local-rep":
        assert all(r["rep_label"] for r in purchases if r["failed_role"] is None)


def test_unrepaired_content_faults_are_counted_as_role_failures(tmp_path: Path) -> None:
    plan = FaultPlan(rates={"unknown_id": 0.5}, seed=1)
    with FakeLLM(faults=plan) as server:
        cfg = cell(server, "no-rep").model_copy(
            update={"llm": llm(server).model_copy(update={"repair_attempts": 0})}
        )
        rows = run(
            cfg, tmp_path / "r", PlayOptions(llm_cache=tmp_path / "s.sqlite")
        ).store.episodes()
    failures = Counter(r["failed_role"] for r in rows)
    assert failures["shortlist"] > 0 and len(rows) == 24
    failed = [r for r in rows if r["failed_role"]]
    assert not any(r["any_purchase"] or r["target_shortlisted"] for r in failed)


def test_mixed_runs_send_only_the_configured_roles(tmp_path: Path) -> None:
    with FakeLLM() as server:
        run(
            cell(server, "local-rep", roles={"evaluation": "m"}),
            tmp_path / "r",
            PlayOptions(llm_cache=tmp_path / "s.sqlite"),
        )
    assert set(server.requests) <= {"shortlist", "decide", "update"}
    assert server.requests["shortlist"] == 24


def test_an_adaptive_llm_platform_is_prompted_with_the_policy_it_chose(tmp_path: Path) -> None:
    """... and a replay of the run, with no server, makes the same choices and records."""
    adaptive = MarketConfig(platform_strategy="adaptive", learning_period=4)
    with FakeLLM() as server:
        cfg = cell(server, "no-rep", roles={"explain": "m"}).model_copy(update={"market": adaptive})
        store = run(cfg, tmp_path / "r", PlayOptions(llm_cache=tmp_path / "s.sqlite")).store
    chosen: Counter[str] = Counter()
    for row in store.episodes():
        lessons = json.loads(row["lessons"])
        explained = [c.input for c in store.calls(row["domain"], row["ord"]) if c.role == "explain"]
        assert {e["platform_id"]: e["policy"] for e in explained} == {
            p: arm for p, (arm, _) in lessons.items()
        }
        chosen.update(e["policy"] for e in explained)
    with sqlite3.connect(tmp_path / "r" / "run.sqlite") as db:
        prompts = [
            json.loads(m)[-1]["content"] for (m,) in db.execute("SELECT messages FROM llm_calls")
        ]
    sent = Counter(
        policy.name for text in prompts for policy in POLICIES if policy.guidance in text
    )
    assert sent == chosen and len(chosen) >= 2
    replayed = run(
        cfg, tmp_path / "replay", PlayOptions(llm_cache=tmp_path / "s.sqlite", replay=True)
    ).store
    assert replayed.episodes() == store.episodes()


def test_cells_sharing_requests_share_stage_one_and_two(tmp_path: Path) -> None:
    shared = tmp_path / "shared.sqlite"
    with FakeLLM() as server:
        run(cell(server, "no-rep"), tmp_path / "a", PlayOptions(llm_cache=shared))
        first = Counter(server.requests)
        run(cell(server, "local-rep"), tmp_path / "b", PlayOptions(llm_cache=shared))
    second = server.requests - first
    assert second["query"] == second["need"] == second["explain"] == 0
    assert second["shortlist"] == 24
    # the second run's own file still holds every call it used
    with sqlite3.connect(tmp_path / "b" / "run.sqlite") as db:
        roles = dict(db.execute("SELECT role, COUNT(*) FROM llm_calls GROUP BY role"))
    assert roles["query"] == 24 and roles["explain"] == 144


def test_the_api_key_never_reaches_disk_or_output(tmp_path: Path) -> None:
    runner = CliRunner()
    with FakeLLM() as server:
        result = runner.invoke(
            app,
            llm_flags(server, tmp_path / "shared.sqlite", tmp_path / "r", requests=12),
        )
    assert result.exit_code == 0, result.output
    assert "LLM calls, tokens and cost" in result.stdout
    assert re.search(r"Video_Games, limit \d+", result.stderr)  # the adaptive limit, shown
    assert KEY not in result.output
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert KEY.encode() not in path.read_bytes(), path
    manifest = (tmp_path / "r" / "run.sqlite").read_bytes()
    assert KEY_ENV.encode() in manifest  # the variable's name is stored, never its value


def test_credentials_in_the_base_url_are_sent_and_land_nowhere(tmp_path: Path) -> None:
    """A key in the URL's user part or query goes with every request as it was written
    (basic authentication, the query parameter) and into no file, key or line."""
    secret = "sk-url-key-5be1"
    with FakeLLM() as server:
        flags = llm_flags(server, tmp_path / "shared.sqlite", tmp_path / "r", requests=6)
        at = flags.index("--llm-base-url") + 1
        host = server.base_url.removeprefix("http://")
        flags[at] = f"http://gw:{secret}@{host}?api-key={secret}&region=eu"
        result = CliRunner().invoke(app, flags)
    assert result.exit_code == 0, result.output
    assert set(server.sent_with) == {f"region=eu&api-key={secret} Basic"}
    assert secret not in result.output
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert secret.encode() not in path.read_bytes(), path
    stored = RunStore.read(tmp_path / "r").config().llm
    assert stored is not None
    assert [m.base_url.endswith("/v1?region=eu") for m in stored.models.values()] == [True]


def config_file(tmp_path: Path, server: FakeLLM, requests: int, model_extra: str = "") -> Path:
    """A run config file with one model on the fake server for every role."""
    config = tmp_path / "llm.toml"
    config.write_text(f"""
domains = ["Video_Games"]
[episodes]
requests = {requests}
[llm.models.m]
name = "fake-model"
base_url = "{server.base_url}"
api_key_env = "{KEY_ENV}"
{model_extra}
[llm.roles]
default = "m"
""")
    return config


def stored_episodes(run_dir: Path) -> int:
    with sqlite3.connect(run_dir / "run.sqlite") as db:
        return db.execute("SELECT COUNT(*) FROM episodes").fetchone()[0]


def test_a_missing_key_stops_the_run_and_the_fixed_rerun_carries_on(
    tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.delenv(KEY_ENV)
    with FakeLLM() as server:
        config = config_file(tmp_path, server, requests=12)
        args = ["run", "--config", str(config), "--out", str(tmp_path / "r")]
        args += ["--llm-cache", str(tmp_path / "s.sqlite")]
        stopped = CliRunner().invoke(app, args)
        assert stopped.exit_code == 4
        assert KEY_ENV in stopped.output and server.base_url in stopped.output
        assert "Traceback" not in stopped.output
        assert stored_episodes(tmp_path / "r") == 0 and server.total == 0
        monkeypatch.setenv(KEY_ENV, KEY)
        fixed = CliRunner().invoke(app, args)
    assert fixed.exit_code == 0, fixed.output
    assert stored_episodes(tmp_path / "r") == 12


def test_a_refused_key_stops_before_any_episode_and_names_the_cause(tmp_path: Path) -> None:
    with FakeLLM(api_key="another-key") as server:
        with pytest.raises(EndpointFailure, match="key was refused") as stop:
            run(
                cell(server, "no-rep", requests=12),
                tmp_path / "r",
                PlayOptions(llm_cache=tmp_path / "s"),
            )
        assert server.base_url in str(stop.value) and "fake-model" in str(stop.value)
        assert server.total == 0  # the check failed; no role call was sent
    assert stored_episodes(tmp_path / "r") == 0


def test_an_outage_mid_run_stops_it_without_failed_episodes_and_the_rerun_finishes(
    tmp_path: Path,
) -> None:
    """Calls that exhaust their retries are infrastructure, not results: what finished is
    kept, nothing unfinished is committed, and the same command finishes after recovery."""
    with FakeLLM(down_after=60) as server:
        cfg = cell(server, "local-rep", requests=24, max_retries=1, timeout=0.3)
        with pytest.raises(EndpointFailure, match="HTTP 503"):
            run(cfg, tmp_path / "r", PlayOptions(llm_cache=tmp_path / "s.sqlite"))
        store = RunStore.read(tmp_path / "r")
        kept = store.episodes()
        store.close()
        assert len(kept) < 24 and not any(r["failed_role"] for r in kept)
        server.down_after = None  # the endpoint recovers
        rows = run(
            cfg, tmp_path / "r", PlayOptions(llm_cache=tmp_path / "s.sqlite")
        ).store.episodes()
    assert len(rows) == 24 and not any(r["failed_role"] for r in rows)


def check_endpoint(server: FakeLLM):
    flags = ["--llm-model", "fake-model", "--llm-base-url", server.base_url]
    return CliRunner().invoke(app, ["llm", "check", *flags, "--llm-api-key-env", KEY_ENV])


def test_llm_check_reports_each_endpoint(tmp_path: Path) -> None:
    with FakeLLM() as server:
        ok = check_endpoint(server)
        assert ok.exit_code == 0, ok.output
        assert "ok: fake-model" in ok.output and server.total == 0
        assert "structured outputs: off" in ok.output  # the fake honours no format
        assert "prompt caching: tokens every call of a role starts with" in ok.output
        assert "no caching threshold known at this endpoint" in ok.output
    with FakeLLM(slots=1, latency=0.05, formats=("json_object",)) as server:
        single = check_endpoint(server)
        assert "limit starts at 1 " in single.output, single.output
        assert "structured outputs: json_object" in single.output
    with FakeLLM(api_key="another-key") as server:
        refused = check_endpoint(server)
    assert refused.exit_code == 4 and "key was refused" in refused.output


def stored_spend(run_dir: Path) -> float:
    with sqlite3.connect(run_dir / "run.sqlite") as db:
        return db.execute("SELECT spent FROM llm_spend").fetchone()[0]


def test_budget_holds_counts_across_resumes_and_the_run_resumes(tmp_path: Path) -> None:
    runner = CliRunner()
    with FakeLLM() as server:
        config = config_file(tmp_path, server, requests=24, model_extra="input_price = 1000.0")
        args = ["run", "--config", str(config), "--out", str(tmp_path / "r")]
        args += ["--llm-cache", str(tmp_path / "s.sqlite")]
        stopped = runner.invoke(app, [*args, "--budget", "5"])
        assert stopped.exit_code == 3 and "budget of $5.00 reached" in stopped.stderr
        assert "spent so far" in stopped.stderr and "Traceback" not in stopped.output
        done, spent = stored_episodes(tmp_path / "r"), stored_spend(tmp_path / "r")
        assert done < 24 and 0 < spent <= 5.0  # reserved before sending: never passed
        sent = server.total
        again = runner.invoke(app, [*args, "--budget", "5"])
        assert again.exit_code == 3  # the earlier spend counts: no fresh $5
        assert server.total - sent <= 16  # at most the calls the remaining money covered
        assert stored_spend(tmp_path / "r") <= 5.0
        finished = runner.invoke(app, [*args, "--json"])
        assert finished.exit_code == 0, finished.output
    assert stored_episodes(tmp_path / "r") == 24
    assert json.loads(finished.stdout)["spent_total"] == pytest.approx(stored_spend(tmp_path / "r"))


def test_a_budget_without_prices_is_refused_and_flags_can_price_a_model(tmp_path: Path) -> None:
    with FakeLLM() as server:
        flags = llm_flags(server, tmp_path / "s.sqlite", tmp_path / "r", 6)
        refused = CliRunner().invoke(app, [*flags, "--budget", "5"])
        assert refused.exit_code == 2 and "no prices for fake-model" in refused.output
        assert server.total == 0 and server.checks == 0
        priced = [*flags, "--budget", "5", "--llm-input-price", "0.5", "--llm-output-price", "2"]
        assert CliRunner().invoke(app, priced).exit_code == 0


def llm_flags(server: FakeLLM, cache: Path, out: Path, requests: int) -> list[str]:
    return [
        "run",
        "--domain",
        "Video_Games",
        "--requests",
        str(requests),
        "--backend",
        "llm",
        "--llm-model",
        "fake-model",
        "--llm-base-url",
        server.base_url,
        "--llm-api-key-env",
        KEY_ENV,
        "--llm-cache",
        str(cache),
        "--out",
        str(out),
    ]


def command(server: FakeLLM, out: Path, cache: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "recmarket", *llm_flags(server, cache, out, 60), "--json", *extra]


def stored_request_keys(cache: Path) -> set[str]:
    """The fake server's key (messages and seed) of every call a store holds."""
    with sqlite3.connect(cache) as db:
        rows = db.execute("SELECT messages, sample FROM llm_calls").fetchall()
    return {
        hashlib.sha256(json.dumps([json.loads(m), s % 2**31]).encode()).hexdigest() for m, s in rows
    }


def episodes(out: Path) -> list[tuple]:
    with sqlite3.connect(out / "run.sqlite") as db:
        return db.execute("SELECT * FROM episodes ORDER BY domain, ord").fetchall()


@pytest.mark.slow  # end to end: runs in .ci/run with -m slow
def test_killed_llm_run_resumes_without_repeating_calls_and_replays_offline(tmp_path: Path) -> None:
    env = dict(os.environ)
    with FakeLLM(latency=0.01) as server:
        clean = subprocess.run(
            command(server, tmp_path / "clean", tmp_path / "c1.sqlite"),
            env=env,
            capture_output=True,
            text=True,
        )
        assert clean.returncode == 0, clean.stderr
        clean_calls = server.total
        server.requests.clear()
        server.attempts.clear()
        killed = tmp_path / "killed"
        proc = subprocess.Popen(
            command(server, killed, tmp_path / "c2.sqlite"),
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 60
        while server.total < clean_calls // 2 and proc.poll() is None:
            assert time.monotonic() < deadline
            time.sleep(0.01)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        finished_before_kill = stored_request_keys(tmp_path / "c2.sqlite")
        sent_before_resume = Counter(server.attempts)
        assert finished_before_kill
        resumed = subprocess.run(
            command(server, killed, tmp_path / "c2.sqlite"), env=env, capture_output=True, text=True
        )
        assert resumed.returncode == 0, resumed.stderr
        for key in finished_before_kill:  # no finished call was sent again
            assert server.attempts[key] == sent_before_resume[key]
        # At most the calls in flight at the kill: the most the adaptive limit allows.
        assert server.total - clean_calls <= ModelConfig(name="m").concurrency
        assert episodes(killed) == episodes(tmp_path / "clean")

        before = server.total
        start = time.monotonic()
        replay = subprocess.run(
            command(server, tmp_path / "replayed", killed / "run.sqlite", "--replay"),
            env=env,
            capture_output=True,
            text=True,
        )
        assert replay.returncode == 0, replay.stderr
        assert server.total == before  # zero network calls
        assert episodes(tmp_path / "replayed") == episodes(tmp_path / "clean")
        assert time.monotonic() - start < 60

        missing = subprocess.run(
            command(server, tmp_path / "nothing", tmp_path / "empty.sqlite", "--replay"),
            env=env,
            capture_output=True,
            text=True,
        )
    assert missing.returncode == 2 and "--replay: no stored answer" in missing.stderr
    assert server.total == before


def experiment(tmp_path: Path, server: FakeLLM, model_extra: str = "") -> Path:
    """A two-cell experiment spec with one model on the fake server for every role."""
    spec = tmp_path / "faulty.toml"
    spec.write_text(f"""
name = "faulty"
description = "catalog overlap through a faulty endpoint"
requests = 12
[base.llm.models.m]
name = "fake-model"
base_url = "{server.base_url}"
api_key_env = "{KEY_ENV}"
timeout = 0.4
{model_extra}
[base.llm.roles]
default = "m"
[[cells]]
name = "rho=0.1"
settings = {{ condition = "no-rep", market = {{ rho = 0.1 }} }}
[[cells]]
name = "rho=1.0/local-rep"
settings = {{ condition = "local-rep", market = {{ rho = 1.0 }} }}
""")
    return spec


def reproduce_args(spec: Path, tmp_path: Path, workers: int = 1) -> list[str]:
    out, cache = str(tmp_path / "r"), str(tmp_path / "s.sqlite")
    seeds = ["--seeds", "1"]  # one replicate: these tests are about faults, not statistics
    return [
        "reproduce",
        str(spec),
        "--out",
        out,
        "--workers",
        str(workers),
        "--llm-cache",
        cache,
        *seeds,
    ]


@pytest.mark.slow  # end to end: runs in .ci/run with -m slow
def test_a_small_experiment_with_twenty_percent_llm_faults(tmp_path: Path) -> None:
    """429s, 500s, hangs past the timeout and invalid JSON, each on 5% of calls, over every
    cell of an experiment: it completes, every episode is stored, failures are counted."""
    plan = FaultPlan(
        rates={"rate_limit": 0.05, "server_error": 0.05, "hang": 0.05, "invalid_json": 0.05},
        hang_seconds=0.8,
        seed=11,
    )
    with FakeLLM(faults=plan) as server:
        spec = experiment(tmp_path, server)
        result = CliRunner().invoke(app, reproduce_args(spec, tmp_path))
        assert result.exit_code == 0, result.output
        assert max(server.attempts.values()) > 1  # faults were met and retried
    assert "role failures" in result.stdout
    stores = sorted((tmp_path / "r" / "cells").glob("*/run.sqlite"))
    assert len(stores) == 2
    for store in stores:
        with sqlite3.connect(store) as db:
            assert db.execute("SELECT COUNT(*) FROM episodes").fetchone()[0] == 36


def test_one_budget_holds_across_the_cells_of_a_reproduce(tmp_path: Path) -> None:
    with FakeLLM() as server:
        spec = experiment(tmp_path, server, model_extra="input_price = 200.0")
        args = [*reproduce_args(spec, tmp_path, workers=2), "--budget", "3"]
        stopped = CliRunner().invoke(app, args)
    assert stopped.exit_code == 3, stopped.output
    assert "budget of $3.00 reached" in stopped.stderr
    with sqlite3.connect(tmp_path / "r" / "llm-spend.sqlite") as db:
        spent = db.execute("SELECT spent FROM llm_spend").fetchone()[0]
    assert 0 < spent <= 3.0  # both cells drew on one account, never past it


@pytest.mark.slow  # keeps the default selection well under 4 minutes
@pytest.mark.parametrize(
    ("raw", "described"),
    [
        (("text/html", b"<html>maintenance</html>"), "an HTML page, not a chat completion"),
        (("application/json", b"<html>labelled</html>"), "an HTML page labelled as JSON"),
        (("text/plain", b"OK"), "text that is not JSON, not a chat completion: 'OK'"),
        (("application/json", b'{"choices": []}'), "a completion with an empty list of choices"),
        (
            ("application/json", b'{"error": "down"}'),
            "a JSON object without choices (its keys: error); it says 'down'",
        ),
        (
            ("application/json", b'{"error": {"message": "quota exceeded", "code": 402}}'),
            "without choices (its keys: error); it says 'quota exceeded'",
        ),
        (("application/json", b'{"id": "x", "choices": [{"index": 0}]}'), "choice has no message"),
    ],
    ids=["html", "html-as-json", "text", "no-choices", "an-error", "an-error-object", "no-message"],
)
def test_malformed_replies_stop_the_run_with_one_line_saying_what_they_were(
    tmp_path: Path, raw, described: str
) -> None:
    with FakeLLM(raw_reply=raw) as server:
        cfg = cell(server, "no-rep", requests=6, max_retries=1)
        with pytest.raises(EndpointFailure, match="malformed replies") as stopped:
            run(cfg, tmp_path / "r", PlayOptions(llm_cache=tmp_path / "s.sqlite"))
        assert 2 <= server.total <= 12  # the first calls (six in flight), retried once
    assert described in str(stopped.value)
    assert stored_episodes(tmp_path / "r") == 0


def test_claimed_token_counts_are_bounded_by_the_request(tmp_path: Path) -> None:
    huge = completion_body({"prompt_tokens": 10**12, "completion_tokens": 10**12})
    with FakeLLM(raw_reply=huge) as server:
        cfg = cell(server, "no-rep", requests=6, max_tokens=300)
        result = run(cfg, tmp_path / "r", PlayOptions(llm_cache=tmp_path / "s.sqlite"))
    for usage in result.ledger.rows.values():
        assert usage.completion_tokens <= 300 * usage.calls
        assert usage.prompt_tokens < 10**9


def test_replies_without_usage_are_charged_by_estimate_and_the_ledger_says_so(
    tmp_path: Path,
) -> None:
    silent = completion_body({"prompt_tokens": -3, "total_tokens": 1})  # negative, missing
    with FakeLLM(raw_reply=silent) as server:
        cfg = cell(server, "no-rep", requests=6, input_price=1.0, output_price=1.0)
        result = run(cfg, tmp_path / "r", PlayOptions(llm_cache=tmp_path / "s.sqlite"))
    assert result.ledger is not None
    sent = [u for u in result.ledger.rows.values() if u.calls > u.cached]
    assert sent and all(u.estimated == u.calls - u.cached for u in sent)
    assert all(u.prompt_tokens > 0 and u.cost > 0 for u in sent)  # not $0
    assert result.spent is not None and result.spent > 0


def test_a_reask_quotes_only_an_excerpt_of_a_long_bad_answer() -> None:
    from recmarket.agents.llm.role import EXCERPT_CHARS, excerpt

    assert excerpt("short") == "short"
    long = "x" * 100_000
    assert len(excerpt(long)) < EXCERPT_CHARS + 10 and excerpt(long).endswith("[...]")


def test_attacks_play_on_the_llm_path_with_their_names_and_payloads(tmp_path: Path) -> None:
    """An injecting seat's explain prompt asks for its payload word for word, and a
    whitewasher's new name is what the shortlist prompt shows and the records key."""
    attacks = {
        "P4": {"attack": "inject", "params": {"family": "strong"}},
        "P1": {"attack": "whitewash", "params": {"window": 2, "below": 1.0}},
    }
    market = MarketConfig.model_validate({"attacks": attacks, "learning_period": 4})
    with FakeLLM() as server:
        cfg = cell(server, "local-rep", requests=16).model_copy(
            update={"market": market, "reputation_scope": "shared"}
        )
        store = run(cfg, tmp_path / "r", PlayOptions(llm_cache=tmp_path / "s.sqlite")).store
    with sqlite3.connect(tmp_path / "r" / "run.sqlite") as db:
        calls = [
            (role, json.loads(m)[-1]["content"])
            for role, m in db.execute("SELECT role, messages FROM llm_calls")
        ]
    payload = PAYLOAD_FAMILIES.get("strong").sentence
    asked = [text for role, text in calls if role == "explain" and payload in text]
    assert asked and all(policy("inject-strong").guidance in text for text in asked)
    renamed = [json.loads(r["identities"]) for r in store.episodes() if r["identities"]]
    assert renamed and {names["P1"] for names in renamed} <= {f"P1-{g}" for g in range(2, 7)}
    assert any("P1-2" in text for role, text in calls if role == "shortlist")


def test_a_store_made_with_one_model_is_not_served_to_another_under_its_name(
    tmp_path: Path,
) -> None:
    """The endpoint now reports another model under the same name (a new revision, other
    weights): a run that must send is refused before it does, naming both reports, and
    what the first run stored is kept."""
    first = [{"id": "fake-model", "object": "model", "owned_by": "me", "created": 1}]
    with FakeLLM(listed=first) as server:
        shared = tmp_path / "calls.sqlite"
        run(
            cell(server, "no-rep", requests=6), tmp_path / "a", PlayOptions(llm_cache=shared)
        ).store.close()
        with sqlite3.connect(shared) as db:
            reports = db.execute("SELECT model, report FROM llm_models").fetchall()
        assert reports == [("fake-model", '{"created": 1}')]
        server.listed = [{**first[0], "created": 2}]
        sent = sum(server.requests.values())
        with pytest.raises(EndpointFailure, match="it now reports the model as") as stopped:
            run(cell(server, "no-rep", requests=12), tmp_path / "b", PlayOptions(llm_cache=shared))
        assert sum(server.requests.values()) == sent  # refused before any role call
    said = str(stopped.value)
    assert '{"created": 2}' in said and 'when it reported {"created": 1}' in said


def test_a_copywriting_seats_listings_are_written_by_the_model_stored_and_replayed(
    tmp_path: Path,
) -> None:
    """The copywriter is asked for the rewriting seat's proposals only, under its strategy's
    rules; the ranker's prompt shows the title it wrote, the review's the listing; a replay
    with no server makes the same records."""
    copy = {"copy": {"P2": {"copy": "copy-stuffing", "params": {"intensity": 1.0}}}}
    market = MarketConfig.model_validate(copy)
    roles = {"copywriter": "m", "shortlist": "m", "review": "m"}
    with FakeLLM() as server:
        cfg = cell(server, "local-rep", requests=12, roles=roles).model_copy(
            update={"market": market}
        )
        store = run(cfg, tmp_path / "r", PlayOptions(llm_cache=tmp_path / "s.sqlite")).store
    asked = [c for row in store.episodes() for c in store.calls(row["domain"], row["ord"])]
    written = [c for c in asked if c.role == "copywriter"]
    assert written and all(c.input["strategy"]["copy"] == "copy-stuffing" for c in written)
    assert server.requests["copywriter"] == len(written) <= 12  # P2's proposals, no more
    with sqlite3.connect(tmp_path / "r" / "run.sqlite") as db:
        prompts = [
            (role, json.loads(m)[-1]["content"])
            for role, m in db.execute("SELECT role, messages FROM llm_calls")
        ]
    rules = [text for role, text in prompts if role == "copywriter"]
    assert rules and all("whether or not the item's own fields mention them" in t for t in rules)
    titles = {c.output["title"] for c in written if c.output["title"] != c.input["item"]["title"]}
    assert titles and any(
        t in text for t in titles for role, text in prompts if role == "shortlist"
    )
    shown = [t for role, t in prompts if role == "review" and "Listing as the platform" in t]
    assert len(shown) == sum(r["bought_rewritten"] for r in store.episodes()) > 0
    replayed = run(
        cfg, tmp_path / "replay", PlayOptions(llm_cache=tmp_path / "s.sqlite", replay=True)
    ).store
    assert replayed.episodes() == store.episodes()
