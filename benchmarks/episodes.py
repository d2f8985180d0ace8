"""Offline episodes per second at N = 6 on one core, item embeddings precomputed: the
paper's fixed platforms, then adaptive ones (issue 12) on the same requests.

Goals: >= 400 local-rep episodes per second per core; an adaptive cell at most 1.3x the
time of the fixed one. Each run also prints the store's bytes an episode and the time an
episode spends being made into rows and written (issue 34: each a third of its earlier
value). The process is pinned to one thread of BLAS
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
import statistics  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

from recmarket.agents.rules import offline_agents  # noqa: E402
from recmarket.config import EpisodeConfig, MarketConfig, RunConfig  # noqa: E402
from recmarket.embedding import load_embedder  # noqa: E402
from recmarket.run import records, runner  # noqa: E402
from recmarket.run.collector import spaced_collections  # noqa: E402
from recmarket.run.rounds import prepare  # noqa: E402
from recmarket.run.runner import play_domain  # noqa: E402
from recmarket.run.store import RunStore  # noqa: E402


class TimedWrites(records.BatchedWrites):
    """The store's part of an episode: making its record and rows, and writing them."""

    spent = 0.0

    def __call__(self, outcome: Any) -> None:
        start = time.perf_counter()
        super().__call__(outcome)
        TimedWrites.spent += time.perf_counter() - start

    def flush(self) -> None:
        start = time.perf_counter()
        super().flush()
        TimedWrites.spent += time.perf_counter() - start


def time_cell(cfg: RunConfig, domain: str, embedder: Any) -> tuple[float, float, float, float, int]:
    """(wall seconds, CPU seconds) of the episode loop, seconds to prepare the domain,
    seconds of it spent writing, and the store's bytes."""
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp) / "cache"
        start = time.perf_counter()
        prepared = prepare(cfg, domain, embedder, cache)
        prepare_seconds = time.perf_counter() - start
        store = RunStore.open(Path(tmp) / "run", cfg)
        TimedWrites.spent = 0.0
        start, cpu = time.perf_counter(), time.process_time()
        agents = offline_agents(embedder, cfg.agents)
        with spaced_collections():  # as run() and every worker play episodes
            asyncio.run(play_domain(cfg, store, prepared, agents, embedder, lambda: None))
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
        store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        store.close()
        stored = sum(p.stat().st_size for p in (Path(tmp) / "run").iterdir() if p.is_file())
    return seconds, cpu, prepare_seconds, TimedWrites.spent, stored


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=1200)
    parser.add_argument("--condition", default="local-rep")
    parser.add_argument("--domain", default="Musical_Instruments")
    parser.add_argument("--repeats", type=int, default=3, help="alternating runs of each")
    args = parser.parse_args()
    embedder = load_embedder(RunConfig().embedder)
    cells = {
        strategy: RunConfig(
            condition=args.condition,
            domains=(args.domain,),
            episodes=EpisodeConfig(requests=args.requests),
            market=MarketConfig(platform_strategy=strategy),
        )
        for strategy in ("fixed", "adaptive")
    }
    times: dict[str, list[float]] = {name: [] for name in cells}
    runner.BatchedWrites = TimedWrites  # type: ignore[misc]  # the store's share, timed
    for _ in range(args.repeats):  # alternating, so a slow spell of the machine hits both
        for name, cfg in cells.items():
            seconds, cpu, prepare_seconds, writing, stored = time_cell(cfg, args.domain, embedder)
            times[name].append(seconds)
            print(
                f"{args.condition}, {name} platforms, N=6, {args.requests} episodes of "
                f"{args.domain}: {seconds:.2f} s, {args.requests / seconds:,.0f} episodes/s on "
                f"one core ({args.requests / cpu:,.0f} per CPU-second); loading and embedding "
                f"the domain took {prepare_seconds:.1f} s; store {stored / args.requests:,.0f} "
                f"bytes an episode, written in {writing / args.requests * 1e6:,.0f} us an episode"
            )
    fixed, adaptive = (statistics.median(times[name]) for name in cells)
    print(
        f"median of {args.repeats}: fixed {args.requests / fixed:,.0f} episodes/s (goal >= 400 "
        f"local-rep), adaptive {args.requests / adaptive:,.0f}/s; adaptive / fixed time "
        f"{adaptive / fixed:.2f}x (goal <= 1.3x)"
    )


if __name__ == "__main__":
    main()
