"""Everyday commands answer at once (goals: `recmarket --help` and every subcommand's
`--help` under 1 s of CPU, none of pandas, matplotlib, scipy, openai or ray imported; an
offline `reproduce --estimate` of the whole plan under 10 s): each timed in fresh processes,
the median of five, with the heavy modules each one imported.

    python benchmarks/commands.py
"""

from __future__ import annotations

import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time

HEAVY = ("pandas", "matplotlib", "scipy", "openai", "ray")
COMMANDS = (
    ("recmarket --help", ["--help"]),
    ("recmarket reproduce --help", ["reproduce", "--help"]),
    ("recmarket show --help", ["show", "--help"]),
    ("recmarket llm audit --help", ["llm", "audit", "--help"]),
    ("recmarket reproduce --estimate --scale 0.1", ["reproduce", "--estimate", "--scale", "0.1"]),
)
TRIES = 5


def timed(args: list[str], out: str) -> tuple[float, float, list[str]]:
    """Wall and CPU seconds of one fresh ``python -m recmarket ARGS``, and the heavy
    modules it imported (from ``-X importtime``)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        [
            sys.executable,
            "-X",
            "importtime",
            "-m",
            "recmarket",
            *args,
            *(["--out", out] if "--estimate" in args else []),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    found = set(re.findall(r"\|\s+(\w+)$", done.stderr, re.M))
    return wall, cpu, sorted(set(HEAVY) & found)


def main() -> None:
    with tempfile.TemporaryDirectory() as out:
        for name, args in COMMANDS:
            runs = [timed(args, out) for _ in range(TRIES)]
            wall = statistics.median(r[0] for r in runs)
            cpu = statistics.median(r[1] for r in runs)
            heavy = ", ".join(runs[0][2]) or "none"
            print(f"{name}: {wall:.2f} s wall, {cpu:.2f} s CPU (median of {TRIES}); heavy: {heavy}")


if __name__ == "__main__":
    main()
