"""LLM-backed runs against the loopback fake server with a fixed latency per call.

The server runs in its own process, as a real endpoint would. Reports (a) the wall time of
a ``local-rep`` cell over 12 simulated users against its critical-path bound (the check
before the run, nine calls one after another; stages 1-2 are three dependent calls per
request, all concurrent; then each user's episodes are sequential: shortlist, decision
and, after a purchase, review and update), goal <= 1.2x;
(b) the calls issued for ``no-rep`` plus ``local-rep`` on the same requests against twice
one cell; (c) the speed-up of ``--replay`` over the original run, goal >= 50x; (d) the share
of prompt characters that repeat the start of an earlier prompt: what a provider's prefix
cache can serve.

    python benchmarks/llm_runs.py [--requests 600] [--latency 1.0] [--concurrency 64]
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from recmarket.agents.llm.adaptive import PROBE_LEVELS
from recmarket.agents.llm.config import LLMConfig, ModelConfig
from recmarket.agents.llm.formats import AUTO_ORDER
from recmarket.agents.llm.prefixes import prompt_text, repeated_prefix_share
from recmarket.config import EpisodeConfig, RunConfig
from recmarket.run.play_options import PlayOptions
from recmarket.run.runner import run

KEY_ENV = "RECMARKET_BENCH_KEY"


def cell(base_url: str, condition: str, requests: int, concurrency: int) -> RunConfig:
    model = ModelConfig(
        name="fake", base_url=base_url, api_key_env=KEY_ENV, concurrency=concurrency, timeout=60
    )
    return RunConfig(
        condition=condition,
        domains=("Video_Games",),
        episodes=EpisodeConfig(requests=requests),
        llm=LLMConfig(models={"m": model}, roles={"default": "m"}),
    )


def calls_served(base_url: str) -> int:
    with urllib.request.urlopen(base_url.removesuffix("/v1") + "/stats", timeout=10) as r:
        return sum(json.loads(r.read()).values())


CHECK_ROUNDS = 1 + 1 + len(PROBE_LEVELS) + len(AUTO_ORDER)  # check, warm-up, probe, formats


def critical_path(out: Path, latency: float) -> float:
    """The check before the run (one call, a warm-up, the parallel-latency probe's levels
    and the structured-output probes, one after another), 3 latencies for stages 1-2, then
    the longest user's chain of dependent calls."""
    with sqlite3.connect(out / "run.sqlite") as db:
        rows = db.execute("SELECT sim_user, any_purchase FROM episodes").fetchall()
    chains: dict[int, int] = {}
    for user, bought in rows:
        chains[user] = chains.get(user, 0) + 2 + 2 * bool(bought)
    return latency * (CHECK_ROUNDS + 3 + max(chains.values()))


def prefix_shares(store: Path) -> tuple[float, dict[str, float]]:
    """(d): repeated-prefix share of all prompts, and of each role's, in the order sent."""
    with sqlite3.connect(store) as db:
        rows = db.execute("SELECT role, messages FROM llm_calls ORDER BY rowid").fetchall()
    prompts = [(role, prompt_text(json.loads(m))) for role, m in rows]
    roles = sorted({role for role, _ in prompts})
    per_role = {r: repeated_prefix_share([p for role, p in prompts if role == r]) for r in roles}
    return repeated_prefix_share([p for _, p in prompts]), per_role


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=600)
    parser.add_argument("--latency", type=float, default=1.0)
    parser.add_argument("--concurrency", type=int, default=64)
    args = parser.parse_args()
    os.environ[KEY_ENV] = "sk-benchmark"
    server = subprocess.Popen(
        [sys.executable, "-m", "recmarket.testing.fake_llm", "--latency", str(args.latency)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        url = server.stdout.readline().strip()  # type: ignore[union-attr]
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            lr = cell(url, "local-rep", args.requests, args.concurrency)
            start = time.perf_counter()
            run(lr, root / "lr", PlayOptions(llm_cache=root / "alone.sqlite")).store.close()
            wall = time.perf_counter() - start
            one_cell = calls_served(url)
            bound = critical_path(root / "lr", args.latency)
            print(
                f"(a) local-rep, {args.requests} episodes, 12 users, {args.latency:.2f} s per "
                f"call: {wall:.1f} s wall, critical path {bound:.1f} s: {wall / bound:.2f}x "
                f"(goal <= 1.2x); {one_cell:,} calls",
                flush=True,
            )

            nr = cell(url, "no-rep", args.requests, args.concurrency)
            run(nr, root / "nr", PlayOptions(llm_cache=root / "shared.sqlite")).store.close()
            run(lr, root / "lr2", PlayOptions(llm_cache=root / "shared.sqlite")).store.close()
            both = calls_served(url) - one_cell
            print(
                f"(b) no-rep + local-rep on the same requests: {both:,} calls vs twice one "
                f"cell {2 * one_cell:,}: {both / (2 * one_cell):.2f}",
                flush=True,
            )

            before = calls_served(url)
            start = time.perf_counter()
            run(
                lr,
                root / "replayed",
                PlayOptions(llm_cache=root / "lr" / "run.sqlite", replay=True),
            ).store.close()
            replay = time.perf_counter() - start
            assert calls_served(url) == before, "replay used the network"
            print(
                f"(c) --replay of the local-rep cell: {replay:.2f} s vs {wall:.1f} s: "
                f"{wall / replay:.0f}x faster (goal >= 50x), 0 network calls"
            )
            overall, per_role = prefix_shares(root / "lr" / "run.sqlite")
            roles = ", ".join(f"{role} {share:.0%}" for role, share in per_role.items())
            print(
                f"(d) prompt characters repeating an earlier prompt's start (a provider's "
                f"prefix cache can serve them): {overall:.0%} overall; {roles}"
            )
    finally:
        server.kill()


if __name__ == "__main__":
    main()
