"""Offline throughput of one cell with the in-process runner, local work units, worker
processes and Ray on this machine (``ray.init(num_cpus=2)``).

    python benchmarks/executors.py [--requests 1200] [--workers 2]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from recmarket.config import EpisodeConfig, RunConfig
from recmarket.run.driver import run_distributed
from recmarket.run.executor import (
    PARTS_PER_WORKER,
    Executor,
    LocalExecutor,
    ProcessExecutor,
    RayExecutor,
    plan_units,
    unit_cost,
)
from recmarket.run.runner import run
from recmarket.run.store import RunStore


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=1200)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    cfg = RunConfig(condition="local-rep", episodes=EpisodeConfig(requests=args.requests))
    episodes = args.requests * len(cfg.domains)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        run(cfg, root / "warm").store.close()  # embeddings cached, imports warm
        part_cost = unit_cost(cfg, episodes) / (PARTS_PER_WORKER * args.workers)
        units = plan_units(cfg, RunStore.open(root / "plan", cfg), root / "cache", part_cost)
        timings = {}
        start = time.perf_counter()
        run(cfg, root / "inproc").store.close()
        timings["in-process runner"] = time.perf_counter() - start

        def timed(label: str, executor: Executor) -> None:
            start = time.perf_counter()
            run_distributed(cfg, root / label, executor).close()
            timings[label] = time.perf_counter() - start

        timed("local work units", LocalExecutor())
        timed(f"{args.workers} worker processes (incl. start)", ProcessExecutor(args.workers))
        import ray

        ray.init(num_cpus=args.workers, include_dashboard=False, log_to_driver=False)
        timed(f"Ray, {args.workers} CPUs (incl. worker start)", RayExecutor())
        ray.shutdown()
    for label, seconds in timings.items():
        print(f"{label}: {seconds:.1f} s, {episodes / seconds:,.0f} episodes/s")
    print(f"{len(units)} units at {args.workers} workers (parts of a domain, whole streams)")


if __name__ == "__main__":
    main()
