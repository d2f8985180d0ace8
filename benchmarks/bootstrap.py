"""50,000 bootstrap draws over 3 domains (goal <= 1 s), for both designs.

paired-request: 1,200 requests per domain with 0/1 outcome differences (the usual case);
cluster-user: 12 simulated users per domain, 100 episodes each; and, for reference, the
index-resampling path taken by real-valued differences.

    python benchmarks/bootstrap.py
"""

from __future__ import annotations

import time

import numpy as np

from recmarket.analysis.bootstrap import cluster_user, paired_request


def timed(label: str, fn) -> None:
    fn()  # warm-up
    start = time.perf_counter()
    result = fn()
    seconds = time.perf_counter() - start
    print(
        f"{label}: {seconds:.3f} s for {result.draws:,} draws "
        f"(estimate {result.estimate:+.4f}, 95% [{result.low:+.4f}, {result.high:+.4f}])"
    )


def main() -> None:
    gen = np.random.default_rng(0)
    domains = ("Musical_Instruments", "Video_Games", "Sports_and_Outdoors")
    binary = {d: gen.choice([-1.0, 0.0, 1.0], p=[0.15, 0.65, 0.2], size=1200) for d in domains}
    real = {d: gen.normal(0.05, 1, size=1200) for d in domains}
    sums = {d: gen.normal(5, 3, size=12) for d in domains}
    counts = {d: np.full(12, 100) for d in domains}
    timed(
        "paired-request, 3 domains x 1,200 requests (0/1 outcomes)", lambda: paired_request(binary)
    )
    timed("cluster-user, 3 domains x 12 users", lambda: cluster_user(sums, counts))
    timed(
        "paired-request, real-valued differences (index resampling)", lambda: paired_request(real)
    )


if __name__ == "__main__":
    main()
