"""50,000 two-stage bootstrap draws over 3 seeds x 3 domains (goal <= 1 s a contrast), as the
paper comparison draws them for each of its numbers.

paired-request: two arms of 1,200 requests per domain and seed with 0/1 outcomes (the usual
case); cluster-user: 12 simulated users per domain and seed, 100 episodes each; and, for
reference, real-valued outcomes, where every request is a category of its own.

    python benchmarks/bootstrap.py
"""

from __future__ import annotations

import time

import numpy as np

from recmarket.analysis.bootstrap import difference, interval, mean_of

DOMAINS = ("Musical_Instruments", "Video_Games", "Sports_and_Outdoors")
SEEDS = (42, 43, 44)


def arm(values: dict[tuple[int, str], np.ndarray]) -> list[dict]:
    return [
        {
            "replicate": seed,
            "domain": d,
            "ord": i,
            "episode_id": f"{d}/{i}",
            "sim_user": i % 12,
            "v": float(v),
        }
        for (seed, d), vs in values.items()
        for i, v in enumerate(vs)
    ]


def timed(label: str, arms: list[list[dict]], unit: str) -> None:
    value = mean_of(lambda r: r["v"])
    interval(arms, value, difference, unit, draws=1_000)  # warm-up
    start = time.perf_counter()
    result = interval(arms, value, difference, unit)
    seconds = time.perf_counter() - start
    print(
        f"{label}: {seconds:.3f} s for {result.draws:,} draws, {result.design} "
        f"(estimate {result.estimate:+.4f}, 95% [{result.low:+.4f}, {result.high:+.4f}])"
    )


def main() -> None:
    gen = np.random.default_rng(0)
    keys = [(s, d) for s in SEEDS for d in DOMAINS]
    binary = [arm({k: gen.choice([0.0, 1.0], p=[0.7, 0.3], size=1200) for k in keys}) for _ in "ab"]
    timed("paired-request, 3 seeds x 3 domains x 1,200 requests (0/1)", binary, "request")
    timed("cluster-user, 3 seeds x 3 domains x 12 users", binary, "user")
    real = [arm({k: gen.normal(0.05, 1, size=1200) for k in keys}) for _ in "ab"]
    timed("paired-request, real-valued outcomes (every request a category)", real, "request")


if __name__ == "__main__":
    main()
