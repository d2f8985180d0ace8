"""Offline episodes per second at N = 6 on one core, item embeddings precomputed.

Goal: >= 400 local-rep episodes per second per core. The process is pinned to one thread of BLAS
and tokenizers so the figure is per core. Times the episode loop of one domain (stage 1
through the reputation update, metrics and the SQLite commit of every episode and role
call), after the domain is loaded and its item embeddings are cached.

    python benchmarks/episodes.py [--requests 1200] [--condition local-rep]
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

from recmarket.agents.rules import offline_agents  # noqa: E402
from recmarket.config import EpisodeConfig, MarketConfig, RunConfig  # noqa: E402
from recmarket.embedding import load_embedder  # noqa: E402
from recmarket.run.runner import play_domain, prepare  # noqa: E402
from recmarket.run.store import RunStore  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=1200)
    parser.add_argument("--condition", default="local-rep")
    parser.add_argument("--domain", default="Musical_Instruments")
    args = parser.parse_args()
    cfg = RunConfig(
        condition=args.condition,
        domains=(args.domain,),
        episodes=EpisodeConfig(requests=args.requests),
        market=MarketConfig(),
    )
    embedder = load_embedder(cfg.embedder)
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp) / "cache"
        start = time.perf_counter()
        prepared = prepare(cfg, args.domain, embedder, cache)
        prepare_seconds = time.perf_counter() - start
        store = RunStore.open(Path(tmp) / "run", cfg)
        start, cpu = time.perf_counter(), time.process_time()
        asyncio.run(
            play_domain(
                cfg, store, prepared, offline_agents(embedder, cfg.agents), embedder, lambda: None
            )
        )
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
        store.close()
    print(
        f"{args.condition}, N=6, {args.requests} episodes of {args.domain}: "
        f"{seconds:.2f} s, {args.requests / seconds:,.0f} episodes/s on one core "
        f"({args.requests / cpu:,.0f} per CPU-second: steadier on a shared machine) "
        f"(goal >= 400 local-rep); loading and embedding the domain took {prepare_seconds:.1f} s"
    )


if __name__ == "__main__":
    main()
