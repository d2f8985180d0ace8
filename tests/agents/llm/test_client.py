"""A model over the OpenAI-compatible provider against a loopback server, end to end:
bounded replies, bounded and visible waits, a run that stops when an endpoint keeps failing."""

import asyncio
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import pytest

from recmarket.agents.llm import wrappers
from recmarket.agents.llm.adaptive import AdaptiveLimit
from recmarket.agents.llm.api import ChatRequest, ProviderError
from recmarket.agents.llm.cache import CallCache
from recmarket.agents.llm.client import ChatModel, EndpointFailure
from recmarket.agents.llm.config import ModelConfig
from recmarket.agents.llm.ledger import Ledger, SpendAccount
from recmarket.agents.llm.openai_api import OpenAIChatAPI
from recmarket.agents.llm.transport import BoundedStream, ReplyTooLarge
from recmarket.testing.fake_llm import FakeLLM, FaultPlan

KEY_ENV = "RECMARKET_TEST_KEY"
MESSAGES = [{"role": "system", "content": "test"}, {"role": "user", "content": "hello"}]


@pytest.fixture(autouse=True)
def api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, "sk-test")


def chat_model(server: FakeLLM, tmp_path: Path, notices: list[str] | None = None, **cfg):
    config = ModelConfig(
        name="fake-model", base_url=server.base_url, api_key_env=KEY_ENV, timeout=2.0, **cfg
    )
    return ChatModel(
        config,
        OpenAIChatAPI(config),
        CallCache([tmp_path / "calls.sqlite"]),
        Ledger(SpendAccount(None, None)),
        AdaptiveLimit(config.concurrency, adaptive=False),
        on_wait=notices.append if notices is not None else None,
    )


def ask(model: ChatModel, calls: int = 1) -> list[str]:
    async def go() -> list[str]:
        try:
            return await asyncio.gather(
                *(model.complete("update", MESSAGES, sample=i) for i in range(calls))
            )
        finally:
            await model.aclose()

    return asyncio.run(go())


def test_a_reply_over_the_size_limit_is_rejected_before_it_is_stored(tmp_path: Path) -> None:
    body = json.dumps({"choices": [{"message": {"content": "x" * 2_000_000}}]}).encode()
    with FakeLLM(raw_reply=("application/json", body)) as server:
        model = chat_model(server, tmp_path, max_retries=1)
        with pytest.raises(EndpointFailure, match="larger than 1,000,000 bytes"):
            ask(model)
        assert server.total == 2  # the call and its one retry
    assert (tmp_path / "calls.sqlite").stat().st_size < 100_000


def test_a_reply_under_a_raised_limit_is_accepted(tmp_path: Path) -> None:
    text = "y" * 1_500_000
    reply = {"choices": [{"index": 0, "message": {"role": "assistant", "content": text}}]}
    with FakeLLM(raw_reply=("application/json", json.dumps(reply).encode())) as server:
        model = chat_model(server, tmp_path, max_reply_bytes=2_000_000)
        assert ask(model) == [text]


def test_a_body_without_a_declared_length_stops_at_the_limit() -> None:
    async def chunks():
        for _ in range(100):
            yield b"z" * 1000

    async def read() -> int:
        seen = 0
        async for chunk in BoundedStream(chunks(), limit=10_000):
            seen += len(chunk)
        return seen

    with pytest.raises(ReplyTooLarge):
        asyncio.run(read())


def test_retry_after_is_capped(tmp_path: Path) -> None:
    plan = FaultPlan(rates={"rate_limit": 1.0}, retry_after=3600, burst=1)
    with FakeLLM(faults=plan) as server:
        model = chat_model(server, tmp_path, retry_after_cap=0.1)
        start = time.monotonic()
        ask(model)
    assert time.monotonic() - start < 5


def test_long_waits_are_announced_and_cleared(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(wrappers, "VISIBLE_WAIT", 0.05)
    plan = FaultPlan(rates={"rate_limit": 1.0}, retry_after=0.2, burst=1)
    notices: list[str] = []
    with FakeLLM(faults=plan) as server:
        ask(chat_model(server, tmp_path, notices))
    # the Retry-After wait is announced (a slow answer may be too, at this tiny threshold)
    assert any(n.startswith("fake-model: waiting") and "HTTP 429" in n for n in notices)
    assert notices[-1] == ""


def test_short_waits_are_not_announced(tmp_path: Path) -> None:
    plan = FaultPlan(rates={"rate_limit": 1.0}, retry_after=0.05, burst=1)
    notices: list[str] = []
    with FakeLLM(faults=plan) as server:
        ask(chat_model(server, tmp_path, notices))
    assert notices == []


def test_failed_retries_in_a_row_across_calls_stop_the_run_early(tmp_path: Path) -> None:
    """A dead endpoint stops the run after a few failed retries in all, not after every
    call in flight has spent all of its retries."""
    with FakeLLM(down_after=0) as server:
        model = chat_model(server, tmp_path, max_retries=10, max_failures_in_a_row=4)
        with pytest.raises(EndpointFailure, match="5 failed retries in a row"):
            ask(model, calls=3)
        # 3 first attempts and 5 retries, and at most one retry of each other call already
        # sent when the fifth failed (the stop cannot recall it); else up to 3 x 11
        assert server.total <= 3 + 5 + 2


def test_a_proxy_failing_every_first_attempt_serves_every_call(tmp_path: Path) -> None:
    with FakeLLM(fail_first=500) as server:
        model = chat_model(server, tmp_path, max_failures_in_a_row=1, concurrency=4)
        assert len(ask(model, calls=12)) == 12
    assert server.total == 12  # the role calls the fake answered, each on its retry


def test_rate_limits_do_not_count_as_failures_in_a_row(tmp_path: Path) -> None:
    plan = FaultPlan(rates={"rate_limit": 1.0}, retry_after=0.01, burst=3)
    with FakeLLM(faults=plan) as server:
        model = chat_model(server, tmp_path, max_failures_in_a_row=2, concurrency=4)
        assert len(ask(model, calls=4)) == 4


def test_a_key_the_endpoint_echoes_reaches_no_error_no_answer_and_no_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = "sk-live-0123456789abcdef"
    monkeypatch.setenv(KEY_ENV, secret)
    with FakeLLM(echo_key=True, fault_rate=1.0) as server:  # every attempt a 5xx or 429
        model = chat_model(server, tmp_path / "failing", max_retries=1)
        with pytest.raises(EndpointFailure) as stopped:
            ask(model)
    assert secret not in str(stopped.value) and "[redacted API key]" in str(stopped.value)
    assert stopped.value.__cause__ is not None and secret not in repr(stopped.value.__cause__)
    with FakeLLM(echo_key=True) as server:
        model = chat_model(server, tmp_path)
        [text] = ask(model)
        assert text.endswith("Bearer [redacted API key]")
        assert secret.encode() not in (tmp_path / "calls.sqlite").read_bytes()
        sent = server.total
        assert ask(chat_model(server, tmp_path)) == [text]  # what the store serves
        assert server.total == sent


def test_a_short_key_is_no_secret_and_answers_keep_their_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY_ENV, "local")
    with FakeLLM(echo_key=True) as server:
        [text] = ask(chat_model(server, tmp_path))
    assert text.endswith("Bearer local")


def test_a_redirect_to_another_host_is_refused_and_never_followed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An endpoint that answers 307 to a server under another host name: the answers would
    be stored as the configured endpoint's, so the call stops, naming where it was sent."""
    monkeypatch.setenv(KEY_ENV, "sk-test")
    with FakeLLM() as elsewhere:
        target = elsewhere.base_url.replace("127.0.0.1", "localhost") + "/chat/completions"

        class Redirect(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers["Content-Length"]))
                self.send_response(307)
                self.send_header("Location", target)
                self.send_header("Content-Length", "0")
                self.end_headers()

        server = HTTPServer(("127.0.0.1", 0), Redirect)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            base = f"http://127.0.0.1:{server.server_port}/v1"
            api = OpenAIChatAPI(ModelConfig(name="m", base_url=base, api_key_env=KEY_ENV))
            request = ChatRequest("query", [{"role": "user", "content": "hi"}], 8, 0.0, None)
            with pytest.raises(ProviderError) as refused:
                asyncio.run(api.generate(request))
        finally:
            server.shutdown()
        assert not refused.value.retryable
        assert "redirected to http://localhost:" in refused.value.cause
        assert sum(elsewhere.requests.values()) == 0  # never sent there
