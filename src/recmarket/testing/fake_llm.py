"""An OpenAI-compatible chat server on loopback that plays every role, with faults on demand.

It recognises the role from the prompt card's system line and answers with plausible,
valid output built from the prompt itself (the shortlist ranks ids it was shown, the
decision buys a shown option). Answers are a deterministic function of the request, so
runs against it are reproducible and resumable. Faults are chosen per request from a seeded
hash: content faults (fenced JSON, prose around JSON, invalid JSON, unknown or duplicate ids,
too few items, labels outside the set) on a request's first attempt; transient faults (429
bursts with Retry-After, 500s, hangs past the client's timeout) on its first attempts only,
so that retries succeed. It counts every request it receives.

Two faults act as an unreliable endpoint in front of it would, on every request, checks and
probes included: ``fault_rate`` fails that share of all attempts at random (half 500s, half
429s with Retry-After), and ``fail_first`` fails the first attempt of every distinct request
(a flaky proxy), with a 500 or a 429 with Retry-After.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import random
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from recmarket.agents.llm.client import CHECK_MESSAGES
from recmarket.agents.llm.formats import PROBE_MESSAGES
from recmarket.agents.llm.pace import PACE_MESSAGES, READ_MESSAGES
from recmarket.agents.llm.prefixes import PrefixIndex, prompt_text
from recmarket.testing.fake_batches import FakeBatches
from recmarket.testing.fake_replies import (
    CONTENT_FAULTS,
    Response,
    answer,
    completion,
    corrupt,
    echoed,
    role_of,
    server_error,
)

TRANSIENT_FAULTS = ("rate_limit", "server_error", "hang")
# The system lines of the calls that check an endpoint rather than play a role.
CHECKS = tuple(m[0] for m in (CHECK_MESSAGES, PROBE_MESSAGES, PACE_MESSAGES, READ_MESSAGES))
PROBE_REPLY = {"answer": "yes", "note": "ok", "items": ["a"], "pick": None}


@dataclass
class FaultPlan:
    """Share of requests that get each fault (content faults apply where they make sense)."""

    rates: dict[str, float] = field(default_factory=dict)
    seed: int = 0
    hang_seconds: float = 2.0
    retry_after: float = 0.05
    burst: int = 2  # how many consecutive 429s a rate-limited request gets

    def pick(self, key: str, kinds: tuple[str, ...]) -> str | None:
        """The content fault a request gets, drawn from a hash of the seed and its key
        (None: none)."""
        roll = int(hashlib.sha256(f"{self.seed}:{key}".encode()).hexdigest()[:8], 16) / 2**32
        edge = 0.0
        for kind in kinds:
            edge += self.rates.get(kind, 0.0)
            if roll < edge:
                return kind
        return None


@dataclass
class FakeLLM:
    """Run with ``with FakeLLM(...) as server:``; point a model at ``server.base_url``."""

    faults: FaultPlan = field(default_factory=FaultPlan)
    latency: float = 0.0
    requests: Counter[str] = field(default_factory=Counter)
    checks: int = 0  # endpoint checks answered (not counted in requests)
    api_key: str | None = None  # when set, any other bearer token gets 401
    down_after: int | None = None  # when set, role calls after this many get 503 (an outage)
    raw_reply: tuple[str, bytes] | None = None  # (content type, body) sent to role calls
    # "openai" or "deepseek": report the prompt tokens a prefix cache would serve (the
    # longest start any earlier prompt shares), in that provider's usage field
    prompt_cache: str | None = None
    attempts: Counter[str] = field(default_factory=Counter)
    # Requests served at once (the others wait, as at a server with that many slots); None:
    # unbounded. ``latency`` is every request's, checks included.
    slots: int | None = None
    # The structured-output types it honours (constrains the structured-output check's
    # reply); role calls' response_format types are counted in ``formats_seen``.
    formats: tuple[str, ...] = ()
    formats_seen: Counter[str] = field(default_factory=Counter)
    # When set, every body leaves one byte per this many seconds (an endpoint that trickles:
    # each read is quick, the whole reply is not)
    trickle: float | None = None
    # Every attempt, checks included, fails at this rate: half 500s, half 429s with
    # Retry-After (``faults.retry_after``), drawn from a generator seeded with ``faults.seed``
    fault_rate: float = 0.0
    # When set, the first attempt of every distinct request fails with this status (500, or
    # 429 with Retry-After); its retries pass
    fail_first: int | None = None
    # When set, each answer (the speed check's too) takes this many seconds per token it
    # holds, as a model writing at 1 / token_seconds tokens a second does
    token_seconds: float | None = None
    # When set, the bearer token sent is echoed: in every error's message and after every
    # answer's text (a misconfigured proxy or a debugging endpoint does this)
    echo_key: bool = False
    # When set, GET /models answers with these entries (what an endpoint reports of the
    # models it serves: an id, and perhaps a creation date or a revision)
    listed: list[dict[str, object]] | None = None
    # Share of flex requests (``service_tier: "flex"``) answered 429 "busy", each attempt
    # drawn afresh: the flex tier at capacity
    flex_busy: float = 0.0
    batch_seconds: float = 0.3  # how long a batch job stays in progress (fake_batches)
    batch_fail_rate: float = 0.0  # share of batch lines failed at their first submission
    lock: threading.Lock = field(default_factory=threading.Lock)
    prefixes: PrefixIndex = field(default_factory=PrefixIndex)
    seen: Counter[str] = field(default_factory=Counter)  # attempts of each distinct request
    # Role calls by how they came authenticated: "QUERY AUTHORIZATION-SCHEME" (what a base
    # URL's credentials became on the wire)
    sent_with: Counter[str] = field(default_factory=Counter)

    def __enter__(self) -> FakeLLM:
        fake = self
        self.chaos = random.Random(self.faults.seed)
        self.batches = FakeBatches(
            lambda body: self.respond(body, slept=True),
            self.batch_seconds,
            self.batch_fail_rate,
            self.faults.seed,
        )
        self.gate = threading.BoundedSemaphore(self.slots) if self.slots else None

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # headers and body leave at once, as from real servers

            def log_message(self, *args: object) -> None:
                pass

            def reply(self, status: int, data: bytes, kind: str = "application/json") -> None:
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self.wfile.write(data)

            def do_GET(self) -> None:  # /stats: requests received so far, by role
                path = self.path.split("?")[0].rstrip("/")
                if "/files/" in path and path.endswith("/content"):
                    status, data = fake.batches.content(path.split("/")[-2])
                    self.reply(status, data, "application/octet-stream")
                    return
                if "/batches" in path:
                    name = path.rsplit("/", 1)[-1]
                    _, _, found = (
                        fake.batches.listed() if name == "batches" else fake.batches.retrieve(name)
                    )
                    self.reply(200 if "error" not in found else 404, json.dumps(found).encode())
                    return
                listing = fake.listed is not None and path.endswith("/models")
                shown = {"object": "list", "data": fake.listed} if listing else fake.requests
                self.reply(200, json.dumps(dict(shown)).encode())

            def do_POST(self) -> None:
                try:
                    raw = self.rfile.read(int(self.headers["Content-Length"]))
                    if self.path.rstrip("/").endswith("/files"):
                        kind = self.headers.get("Content-Type", "")
                        _, _, made = fake.batches.upload(kind, raw)
                        self.reply(200, json.dumps(made).encode())
                        return
                    body = json.loads(raw)
                except (ValueError, OSError):  # the client left mid-request (a cancelled call)
                    self.close_connection = True
                    return
                if self.path.rstrip("/").endswith("/batches"):
                    status, _, made = fake.batches.create(body)
                    self.reply(status, json.dumps(made).encode())
                    return
                content_type = "application/json"
                scheme = self.headers.get("Authorization", "").partition(" ")[0]
                with fake.lock:
                    fake.sent_with[f"{self.path.partition('?')[2]} {scheme}"] += 1
                if fake.api_key and self.headers.get("Authorization") != f"Bearer {fake.api_key}":
                    status, headers = 401, dict[str, str]()
                    payload = {"error": {"message": "invalid api key", "type": "auth"}}
                elif fake.gate is not None:
                    with fake.gate:
                        time.sleep(fake.latency)
                        status, headers, payload = fake.respond(body, slept=True)
                else:
                    status, headers, payload = fake.respond(body)
                if fake.echo_key:
                    payload = echoed(payload, self.headers.get("Authorization", ""))
                data = json.dumps(payload).encode()
                if fake.raw_reply is not None and body["messages"][0] != CHECK_MESSAGES[0]:
                    content_type, data = fake.raw_reply
                self.send_response(status)
                for name, value in {
                    **headers,
                    "Content-Type": content_type,
                    "Content-Length": str(len(data)),
                }.items():
                    self.send_header(name, value)
                self.end_headers()
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    fake.send(self.wfile, data)

        class Server(ThreadingHTTPServer):
            request_queue_size = 256  # a real endpoint accepts every connection in flight

        self.httpd = Server(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()
        return self

    def send(self, out: Any, data: bytes) -> None:
        """The body at once, or one byte per ``trickle`` seconds."""
        if self.trickle is None:
            out.write(data)
            return
        for byte in data:
            out.write(bytes([byte]))
            out.flush()
            time.sleep(self.trickle)

    def __exit__(self, *_: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    @property
    def base_url(self) -> str:
        """The server's OpenAI-compatible base URL."""
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    @property
    def total(self) -> int:
        """Role calls received so far."""
        return sum(self.requests.values())

    def write(self, text: str) -> None:
        """Take as long as writing ``text`` takes at ``token_seconds`` a token."""
        if self.token_seconds is not None:
            time.sleep(len(text) // 4 * self.token_seconds)

    def unreliable(self, body: dict[str, Any]) -> Response | None:
        """The failure ``fault_rate`` or ``fail_first`` gives this attempt, if any."""
        key = json.dumps([body["messages"], body.get("seed"), body.get("response_format")])
        with self.lock:
            first = self.seen[key] == 0
            self.seen[key] += 1
            roll = self.chaos.random()
            coin = self.chaos.random()
        if self.fail_first is not None and first:
            status = self.fail_first
        elif roll < self.fault_rate:
            status = 429 if coin < 0.5 else 500
        else:
            return None
        return self.rate_limited() if status == 429 else server_error()

    def rate_limited(self) -> Response:
        """A 429 asking the client to wait ``faults.retry_after`` seconds."""
        return (
            429,
            {"Retry-After": str(self.faults.retry_after)},
            {"error": {"message": "rate limited", "type": "rate_limit"}},
        )

    def respond(self, body: dict[str, Any], slept: bool = False) -> Response:
        """The status, headers and body that answer a request: an injected fault, or the
        role's answer."""
        messages = body["messages"]
        form = (body.get("response_format") or {}).get("type")
        if self.latency and not slept:  # every request, checks too, as at a real endpoint
            time.sleep(self.latency)
        unreliable = self.unreliable(body)
        if unreliable is not None:
            return unreliable
        if body.get("service_tier") == "flex" and self.flex_busy:
            with self.lock:
                busy = self.chaos.random() < self.flex_busy
            if busy:
                return self.rate_limited()
        prompt_tokens = sum(len(m["content"]) for m in messages) // 4
        if messages[0] in CHECKS:
            with self.lock:  # checks: never faulted by ``faults``
                self.checks += 1
            text = json.dumps(PROBE_REPLY) if form in self.formats else "OK"
            if messages[0] == PACE_MESSAGES[0]:  # the speed check: as many tokens as asked
                text = " ".join(str(n) for n in range(1, body.get("max_tokens", 16) + 1))
            self.write(text)
            return 200, {}, completion(body, text, prompt_tokens)
        user = messages[1]["content"]  # the card, not a re-ask
        role = role_of(messages)
        key = hashlib.sha256(json.dumps([messages, body.get("seed")]).encode()).hexdigest()
        with self.lock:
            self.requests[role] += 1
            attempt = self.attempts[key]
            self.attempts[key] += 1
            down = self.down_after is not None and self.total > self.down_after
            self.formats_seen[form or "off"] += 1
        if down:
            return 503, {}, {"error": {"message": "service unavailable", "type": "outage"}}
        transient = self.faults.pick("t" + key, TRANSIENT_FAULTS)
        if transient == "rate_limit" and attempt < self.faults.burst:
            return self.rate_limited()
        if transient == "server_error" and attempt == 0:
            return server_error()
        if transient == "hang" and attempt == 0:
            time.sleep(self.faults.hang_seconds)
        text = answer(role, user, structured=form is not None)
        repairing = len(messages) > 2
        kind = None if repairing else self.faults.pick("c" + key, CONTENT_FAULTS)
        if kind:
            text = corrupt(role, kind, text)
        self.write(text)
        reply = completion(body, text, prompt_tokens)
        if self.prompt_cache is not None:
            with self.lock:
                cached = min(self.prefixes.add(prompt_text(messages)) // 4, prompt_tokens)
            if self.prompt_cache == "deepseek":
                reply["usage"]["prompt_cache_hit_tokens"] = cached
            else:
                reply["usage"]["prompt_tokens_details"] = {"cached_tokens": cached}
        return 200, {}, reply


def probability(text: str) -> float:
    """A rate from the command line, if it lies in [0, 1]."""
    value = float(text)
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"{text} is not a probability in [0, 1]")
    return value


def main() -> None:
    """Serve in the foreground (for benchmarks that keep the server out of their process):
    prints the base URL, then serves until killed."""
    import argparse

    parser = argparse.ArgumentParser(description="fake OpenAI-compatible server")
    parser.add_argument("--latency", type=float, default=0.0)
    parser.add_argument("--prompt-cache", choices=("openai", "deepseek"), default=None)
    parser.add_argument("--slots", type=int, default=None, help="requests served at once")
    parser.add_argument(
        "--fault-rate",
        type=probability,
        default=0.0,
        help="share of all attempts, checks included, failed at random (500s and 429s)",
    )
    parser.add_argument(
        "--fail-first",
        nargs="?",
        type=int,
        choices=(429, 500),
        const=500,
        default=None,
        help="fail every distinct request's first attempt (with 500, or the status given)",
    )
    parser.add_argument("--fault-seed", type=int, default=0, help="seed of the random faults")
    parser.add_argument(
        "--flex-busy", type=probability, default=0.0, help="share of flex attempts answered 429"
    )
    parser.add_argument(
        "--batch-seconds", type=float, default=0.3, help="seconds a batch job stays in progress"
    )
    parser.add_argument(
        "--batch-fail-rate",
        type=probability,
        default=0.0,
        help="share of batch lines failed at their first submission",
    )
    args = parser.parse_args()
    with FakeLLM(
        latency=args.latency,
        prompt_cache=args.prompt_cache,
        slots=args.slots,
        fault_rate=args.fault_rate,
        fail_first=args.fail_first,
        faults=FaultPlan(seed=args.fault_seed),
        flex_busy=args.flex_busy,
        batch_seconds=args.batch_seconds,
        batch_fail_rate=args.batch_fail_rate,
    ) as server:
        print(server.base_url, flush=True)
        server.thread.join()


if __name__ == "__main__":
    main()
