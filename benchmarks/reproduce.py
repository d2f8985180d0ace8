"""The full Table 1 matrix at --scale 1.0 with the offline backend, every cell at --seeds
seeds (goal <= 5 minutes a seed on 2 cores), then the report.

    python benchmarks/reproduce.py [--scale 1.0] [--seeds 3] [--workers 2] [--out DIR]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from recmarket.report.build import build_report
from recmarket.run.reproduce import DEFAULT_SEEDS, plan, reproduce


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--seeds", type=int, default=DEFAULT_SEEDS)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        out = args.out or Path(tmp)
        cells, configs = plan([], out, args.scale, seeds=args.seeds)
        episodes = sum(c.episodes.requests * len(c.domains) for c in configs.values())
        start = time.perf_counter()
        reproduce([], out, scale=args.scale, workers=args.workers, seeds=args.seeds)
        ran = time.perf_counter() - start
        start = time.perf_counter()
        build_report([out], out / "report")
        reported = time.perf_counter() - start
    print(
        f"--scale {args.scale}, {args.seeds} seeds: {len(cells)} cells ({len(configs)} unique), "
        f"{episodes:,} episodes in {ran:.0f} s with {args.workers} workers "
        f"({episodes / ran:,.0f}/s); report in {reported:.1f} s; total {ran + reported:.0f} s, "
        f"{(ran + reported) / args.seeds:.0f} s a seed (goal <= 300 s a seed)"
    )


if __name__ == "__main__":
    main()
