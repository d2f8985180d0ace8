"""The full Table 1 matrix at --scale 1.0 with the offline backend (goal <= 5 minutes on 2
cores), then the report.

    python benchmarks/reproduce.py [--scale 1.0] [--workers 2] [--out DIR]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from recmarket.report.build import build_report
from recmarket.run.reproduce import plan, reproduce


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        out = args.out or Path(tmp)
        cells, configs = plan([], out, args.scale)
        episodes = sum(c.episodes.requests * len(c.domains) for c in configs.values())
        start = time.perf_counter()
        reproduce([], out, scale=args.scale, workers=args.workers)
        ran = time.perf_counter() - start
        start = time.perf_counter()
        build_report([out], out / "report")
        reported = time.perf_counter() - start
    print(
        f"--scale {args.scale}: {len(cells)} cells ({len(configs)} unique), {episodes:,} "
        f"episodes in {ran:.0f} s with {args.workers} workers ({episodes / ran:,.0f}/s); "
        f"report in {reported:.1f} s; total {ran + reported:.0f} s (goal <= 300 s)"
    )


if __name__ == "__main__":
    main()
