"""`recmarket report` over a run of a million episodes: its wall time and peak memory.

Playing 1,000,000 episodes takes most of an hour on two cores, and the report reads only the
stores, so the run is made large rather than played: one LocalRep cell of one domain is
reproduced at ten seeds with a few hundred requests, and each seed's store is then filled
to its share of the episodes with copies of its own rows (each copy another order and
episode id, the values as played). The report reads them as it would a played run of that
size. It runs in a process of its own, whose peak resident memory is read back from the
operating system (the largest process; the goal is under 2 GB).

    python benchmarks/report.py [--episodes 1000000] [--seeds 10] [--workers 1]
"""

from __future__ import annotations

import argparse
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from recmarket.study import reproduce

SPEC = """
name = "report-benchmark"
description = "One LocalRep cell of one domain, filled to a million episodes for the report"
requests = {requests}

[[cells]]
name = "local-rep"
settings = {{ condition = "local-rep", domains = ["Musical_Instruments"] }}
"""


# The report in a process of its own, printing the peak resident memory of it and of the
# processes it started (kB), so that the reproduce workers above are not counted.
REPORT = """
import resource, sys
from pathlib import Path
from recmarket.report.build import build_report
build_report([Path(sys.argv[1])], Path(sys.argv[2]), int(sys.argv[3]))
who = (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
print(max(resource.getrusage(w).ru_maxrss for w in who))
"""


def fill(store: Path, episodes: int) -> None:
    """Copies of the store's own rows (another order and episode id each) up to ``episodes``."""
    with sqlite3.connect(store) as db:
        columns = [row[1] for row in db.execute("PRAGMA table_info(episodes)")]
        played = db.execute("SELECT COUNT(*), MAX(ord) + 1 FROM episodes").fetchone()
        count, stride = played
        moved = {"ord": "ord + {offset}", "episode_id": "episode_id || '#{copy}'"}
        copied = ", ".join(moved.get(c, c) for c in columns)
        for copy in range(1, -(-episodes // count)):
            offset = copy * stride
            left = episodes - copy * count
            db.execute(
                f"INSERT INTO episodes ({', '.join(columns)}) "
                f"SELECT {copied.format(offset=offset, copy=copy)} FROM episodes "
                f"WHERE ord < ? ORDER BY ord LIMIT ?",
                (stride, min(count, left)),
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=1_000_000)
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--requests", type=int, default=600, help="played per seed")
    parser.add_argument("--workers", type=int, default=1, help="the report's processes")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        spec = Path(tmp) / "spec.toml"
        spec.write_text(SPEC.format(requests=args.requests))
        out = Path(tmp) / "out"
        start = time.perf_counter()
        reproduce([str(spec)], out, seeds=args.seeds, workers=2)
        played = time.perf_counter() - start
        stores = sorted(out.glob("**/run.sqlite"))
        start = time.perf_counter()
        for store in stores:
            fill(store, args.episodes // len(stores))
        filled = time.perf_counter() - start
        rows = 0
        for store in stores:
            with sqlite3.connect(store) as db:
                rows += db.execute("SELECT COUNT(*) FROM episodes").fetchone()[0]
        size = sum(s.stat().st_size for s in stores)
        print(
            f"{len(stores)} stores, {rows:,} episodes ({size / 1e6:,.0f} MB): played "
            f"{args.requests} requests a seed in {played:.1f} s, filled in {filled:.1f} s"
        )
        target = str(Path(tmp) / "report")
        command = [sys.executable, "-c", REPORT, str(out), target, str(args.workers)]
        start = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True)
        seconds = time.perf_counter() - start
        if done.returncode:
            sys.exit(f"the report failed: {done.stderr.strip().splitlines()[-1:]}")
        peak = int(done.stdout.split()[-1]) * 1024  # ru_maxrss is in kB on Linux
        print(
            f"recmarket report over {rows:,} episodes: {seconds:.1f} s wall, peak resident "
            f"{peak / 1e9:.2f} GB (largest process; goal < 2 GB)"
        )


if __name__ == "__main__":
    main()
