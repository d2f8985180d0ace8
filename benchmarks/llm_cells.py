"""LLM calls per second across the cells of a reproduce, against the loopback fake server.

``reproduce --backend llm`` plays every cell at once in one process, their calls meeting at
one adaptive limit per endpoint. This runs the accountability experiment (six cells, three
domains, one seed) against a server that answers every call after ``--latency`` seconds,
with the model's concurrency at ``--concurrency``, and reports the calls served per second
over the reproduce's wall time against the ceiling concurrency / latency (goal: at least
80%). It then plays each cell alone, one after another, against a second server without
latency and with a fresh call cache, and checks that every cell's records (episode rows and
every role call) are the same: playing cells at once changes when calls are made, never
what is asked or answered. ``--alone-latency`` gives that second server a latency too, to
measure the cell-by-cell rate for comparison (slower: a cell alone cannot fill the limit).

    python benchmarks/llm_cells.py [--scale 0.05] [--latency 1.0] [--concurrency 64]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from recmarket.config import RunConfig
from recmarket.run.play_options import PlayOptions
from recmarket.run.runner import run
from recmarket.run.store import RunStore
from recmarket.run.study_plan import plan
from recmarket.study import reproduce

KEY_ENV = "RECMARKET_BENCH_KEY"
EXPERIMENT = "accountability"


@contextmanager
def fake_server(latency: float) -> Iterator[str]:
    """The fake endpoint in a process of its own, as a real one would be; its base URL."""
    server = subprocess.Popen(
        [sys.executable, "-m", "recmarket.testing.fake_llm", "--latency", str(latency)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        yield server.stdout.readline().strip()  # type: ignore[union-attr]
    finally:
        server.kill()
        server.wait()


def calls_served(base_url: str) -> int:
    with urllib.request.urlopen(base_url.removesuffix("/v1") + "/stats", timeout=10) as r:
        return sum(json.loads(r.read()).values())


def llm_settings(base_url: str, concurrency: int) -> dict[str, Any]:
    model = {
        "name": "fake",
        "base_url": base_url,
        "api_key_env": KEY_ENV,
        "concurrency": concurrency,
        "timeout": 120,
    }
    return {"llm": {"models": {"m": model}, "roles": {"default": "m"}}}


def pointed_at(cfg: RunConfig, base_url: str) -> RunConfig:
    """The cell with its model at another endpoint (the answers do not depend on which)."""
    assert cfg.llm is not None
    model = cfg.llm.models["m"].model_copy(update={"base_url": base_url})
    return cfg.model_copy(update={"llm": cfg.llm.model_copy(update={"models": {"m": model}})})


def records(run_dir: Path) -> tuple[list[dict[str, Any]], list[tuple[str, int, Any]]]:
    """A cell's episode rows and role calls (role, input, output), comparable across runs."""
    store = RunStore.read(run_dir)
    try:
        calls = [(d, o, (c.role, c.input, c.output)) for d, o, c in store.all_calls()]
        return store.episodes(), calls
    finally:
        store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=0.05)
    parser.add_argument("--latency", type=float, default=1.0)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--alone-latency", type=float, default=0.0)
    args = parser.parse_args()
    os.environ[KEY_ENV] = "sk-benchmark"
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        with fake_server(args.latency) as url:
            settings = llm_settings(url, args.concurrency)
            start = time.perf_counter()
            reproduce(
                [EXPERIMENT],
                root / "together",
                scale=args.scale,
                overrides=settings,
                seeds=1,
                options=PlayOptions(
                    llm_cache=root / "together.sqlite", cache_dir=root / "embeddings"
                ),
            )
            wall = time.perf_counter() - start
            calls = calls_served(url)
        _, configs = plan([EXPERIMENT], root / "together", args.scale, settings, 1)
        episodes = sum(c.total_episodes for c in configs.values())
        ceiling = args.concurrency / args.latency
        print(
            f"{EXPERIMENT} at --scale {args.scale:g}, one seed: {len(configs)} cells, "
            f"{episodes:,} episodes, {calls:,} calls in {wall:.1f} s at {args.latency:g} s "
            f"per call: {calls / wall:.1f} calls/s, {calls / wall / ceiling:.0%} of "
            f"{args.concurrency} / {args.latency:g} s = {ceiling:.0f} calls/s (goal >= 80%)",
            flush=True,
        )

        with fake_server(args.alone_latency) as alone_url:
            start = time.perf_counter()
            for number, (run_dir, cfg) in enumerate(configs.items()):
                alone = root / f"alone-{number}"
                run(
                    pointed_at(cfg, alone_url),
                    alone,
                    PlayOptions(
                        llm_cache=root / f"alone-{number}.sqlite", cache_dir=root / "embeddings"
                    ),
                ).store.close()
                if records(alone) != records(Path(run_dir)):
                    raise SystemExit(f"{run_dir}: records differ from the cell played alone")
            alone_wall = time.perf_counter() - start
            alone_calls = calls_served(alone_url)
        rate = f"{alone_calls / alone_wall:.1f} calls/s" if args.alone_latency else "no latency"
        print(
            f"cell by cell ({rate}, {alone_wall:.1f} s, {alone_calls:,} calls): every cell's "
            "records the same as when played at once",
            flush=True,
        )


if __name__ == "__main__":
    main()
