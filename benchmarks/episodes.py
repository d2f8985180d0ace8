"""Offline episodes per second at N = 6 on one core, item embeddings precomputed: the
paper's fixed platforms, then adaptive ones (issue 12) on the same requests.

Goals: >= 400 local-rep episodes per second per core; an adaptive cell at most 1.3x the
time of the fixed one. The process is pinned to one thread of BLAS
and tokenizers so the figure is per core. Times the episode loop of one domain (stage 1
through the reputation update, metrics and the SQLite commit of every episode and role
call), after the domain is loaded and its item embeddings are cached.

    python benchmarks/episodes.py [--requests 1200] [--condition local-rep]

Adaptive platforms learn by Thompson sampling and update every 12 rounds; their periods are
played one after the other (concurrently within each), which is the cost measured.
"""

from __future__ import annotations

import os

for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "RAYON_NUM_THREADS"):
    os.environ[var] = "1"
os.environ["TOKENIZERS_PARALLELISM"] = "false"

import argparse  # noqa: E402 - the thread limits must be set before numpy loads
import asyncio  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

from recmarket.agents.rules import offline_agents  # noqa: E402
from recmarket.config import EpisodeConfig, MarketConfig, RunConfig  # noqa: E402
from recmarket.embedding import load_embedder  # noqa: E402
from recmarket.run.runner import play_domain, prepare  # noqa: E402
from recmarket.run.store import RunStore  # noqa: E402


def time_cell(cfg: RunConfig, domain: str, embedder: Any) -> tuple[float, float, float]:
    """(wall seconds, CPU seconds) of the episode loop, and seconds to prepare the domain."""
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp) / "cache"
        start = time.perf_counter()
        prepared = prepare(cfg, domain, embedder, cache)
        prepare_seconds = time.perf_counter() - start
        store = RunStore.open(Path(tmp) / "run", cfg)
        start, cpu = time.perf_counter(), time.process_time()
        agents = offline_agents(embedder, cfg.agents)
        asyncio.run(play_domain(cfg, store, prepared, agents, embedder, lambda: None))
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
        store.close()
    return seconds, cpu, prepare_seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=1200)
    parser.add_argument("--condition", default="local-rep")
    parser.add_argument("--domain", default="Musical_Instruments")
    args = parser.parse_args()
    embedder = load_embedder(RunConfig().embedder)
    times = {}
    for strategy in ("fixed", "adaptive"):
        cfg = RunConfig(
            condition=args.condition,
            domains=(args.domain,),
            episodes=EpisodeConfig(requests=args.requests),
            market=MarketConfig(platform_strategy=strategy),
        )
        seconds, cpu, prepare_seconds = time_cell(cfg, args.domain, embedder)
        times[strategy] = seconds
        print(
            f"{args.condition}, {strategy} platforms, N=6, {args.requests} episodes of "
            f"{args.domain}: {seconds:.2f} s, {args.requests / seconds:,.0f} episodes/s on one "
            f"core ({args.requests / cpu:,.0f} per CPU-second: steadier on a shared machine); "
            f"loading and embedding the domain took {prepare_seconds:.1f} s"
        )
    print(
        f"adaptive / fixed time: {times['adaptive'] / times['fixed']:.2f}x (goal <= 1.3x); "
        "fixed goal >= 400 local-rep episodes/s"
    )


if __name__ == "__main__":
    main()
