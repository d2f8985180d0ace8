"""Offline throughput of one cell with the in-process runner, local work units, and Ray on
this machine (``ray.init(num_cpus=2)``), plus the per-unit cost the scaling model uses.

    python benchmarks/executors.py [--requests 1200]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from recmarket.config import EpisodeConfig, RunConfig
from recmarket.run.executor import LocalExecutor, RayExecutor, plan_units, run_distributed
from recmarket.run.runner import run
from recmarket.run.store import RunStore


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=1200)
    args = parser.parse_args()
    cfg = RunConfig(condition="local-rep", episodes=EpisodeConfig(requests=args.requests))
    episodes = args.requests * len(cfg.domains)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        run(cfg, root / "warm").store.close()  # embeddings cached, imports warm
        units = plan_units(cfg, RunStore.open(root / "plan", cfg), root / "cache")
        timings = {}
        start = time.perf_counter()
        run(cfg, root / "inproc").store.close()
        timings["in-process runner"] = time.perf_counter() - start
        start = time.perf_counter()
        run_distributed(cfg, root / "units", LocalExecutor()).close()
        timings["local work units"] = time.perf_counter() - start
        import ray

        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
        executor = RayExecutor()
        start = time.perf_counter()
        run_distributed(cfg, root / "ray", executor).close()
        timings["Ray, 2 CPUs (incl. worker start)"] = time.perf_counter() - start
        ray.shutdown()
    longest = max(len(u.orders) for u in units)
    for label, seconds in timings.items():
        print(f"{label}: {seconds:.1f} s, {episodes / seconds:,.0f} episodes/s")
    per_unit = timings["local work units"] / len(units)
    per_episode = timings["local work units"] / episodes
    print(
        f"{len(units)} units (streams) of up to {longest} episodes; {per_unit * 1000:.0f} ms "
        f"per unit, {per_episode * 1000:.2f} ms per episode; critical path of one cell "
        f"~ {longest * per_episode:.2f} s plus one domain load"
    )


if __name__ == "__main__":
    main()
