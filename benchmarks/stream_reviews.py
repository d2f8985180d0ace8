"""Streaming a 1 GB review file: time and peak memory of loading a domain.

Writes (once) a plain-JSONL review file of about ``--size-gb`` GB in the official format,
made by replicating bundled demo reviews under fresh user ids and padding review texts to
real-world lengths, beside the demo meta file. Then, in a fresh child process so that
nothing else counts towards its memory, loads the domain (pass one over the reviews, the
meta join), applies the episode rules and samples R = 1,200 requests (pass two), reporting
wall time and peak resident memory (ru_maxrss).

    python benchmarks/stream_reviews.py [--size-gb 1.0] [--dir /tmp/recmarket-stream]
"""

from __future__ import annotations

import argparse
import gzip
import json
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

from recmarket.data import BUNDLED_DATA_DIR

DOMAIN = "Musical_Instruments"
PADDING = (
    " I have used it for a few weeks now, mostly at home and once at a rehearsal, and "
    "it has held up about as well as I expected for the price."
)


def write_file(directory: Path, size_gb: float) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    target = directory / f"{DOMAIN}.jsonl"
    shutil.copy(BUNDLED_DATA_DIR / f"meta_{DOMAIN}.jsonl.gz", directory)
    if target.is_file() and target.stat().st_size >= size_gb * 1e9 * 0.99:
        return target
    with gzip.open(BUNDLED_DATA_DIR / f"{DOMAIN}.jsonl.gz", "rt") as fh:
        rows = [json.loads(line) for line in fh]
    limit, written, copy = size_gb * 1e9, 0, 0
    with target.open("w") as out:
        while written < limit:
            for row in rows:
                row = dict(
                    row,
                    user_id=f"{row['user_id'][:20]}C{copy:07d}",
                    text=row["text"] + PADDING * (1 + copy % 3),
                )
                line = json.dumps(row) + "\n"
                out.write(line)
                written += len(line)
            copy += 1
    return target


def measure(directory: Path) -> None:
    from recmarket.config import EpisodeConfig
    from recmarket.data.domain import domain_files, load_domain
    from recmarket.data.episodes import index_episodes, sample_requests

    start = time.perf_counter()
    domain = load_domain(domain_files(directory, DOMAIN))
    loaded = time.perf_counter() - start
    episodes = len(index_episodes(domain, EpisodeConfig()))
    requests = sample_requests(domain, EpisodeConfig(), seed=42)
    total = time.perf_counter() - start
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        json.dumps(
            {
                "reviews": domain.report.reviews_read,
                "users": domain.n_users,
                "eligible_episodes": episodes,
                "requests": len(requests),
                "load_seconds": round(loaded, 1),
                "total_seconds": round(total, 1),
                "peak_rss_mb": round(peak_mb),
            }
        )
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-gb", type=float, default=1.0)
    parser.add_argument("--dir", type=Path, default=Path("/tmp/recmarket-stream"))
    parser.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        measure(args.dir)
        return
    start = time.perf_counter()
    path = write_file(args.dir, args.size_gb)
    print(
        f"{path}: {path.stat().st_size / 1e9:.2f} GB (ready in {time.perf_counter() - start:.0f} s)"
    )
    result = subprocess.run(
        [sys.executable, __file__, "--measure", "--dir", str(args.dir)],
        check=True,
        capture_output=True,
        text=True,
    )
    figures = json.loads(result.stdout)
    print(
        f"{figures['reviews']:,} reviews, {figures['users']:,} users, "
        f"{figures['eligible_episodes']:,} eligible episodes"
    )
    print(
        f"load (pass one + meta join): {figures['load_seconds']} s; with episode rules and "
        f"1,200 requests (pass two): {figures['total_seconds']} s; "
        f"peak memory {figures['peak_rss_mb']} MB"
    )


if __name__ == "__main__":
    main()
