"""Instructions an offline episode executes, which a shared machine's load does not move.

Wall-clock figures on a shared 2-core machine spread by 1.5x between runs, more than the
steps of a speed-up; the instructions a warm episode executes do not. Each tree named (a
checkout of recmarket; this one by default) plays the fixed local-rep cell of 600 requests
of one domain two and three times in one process under valgrind's cachegrind, as its
``benchmarks/episodes.py`` plays it; the difference of the two counts is one warm run.

    python benchmarks/instructions.py [TREE ...] [--requests 600]

Needs valgrind. Each tree takes a few minutes (its two processes run at once).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

# Played inside each tree (its own src first on the path): only what every recmarket since
# the episode benchmark existed has, so an older tree runs it as it is.
PLAY = """
import asyncio, contextlib, os, sys, tempfile
from pathlib import Path
from recmarket.agents.rules import offline_agents
from recmarket.config import EpisodeConfig, RunConfig
from recmarket.embedding import load_embedder
from recmarket.run.rounds import prepare
from recmarket.run.runner import play_domain
from recmarket.run.store import RunStore
try:
    from recmarket.run.collector import spaced_collections  # as episodes.py plays, if it does
except ImportError:
    spaced_collections = contextlib.nullcontext
runs, requests = int(sys.argv[1]), int(sys.argv[2])
embedder = load_embedder(RunConfig().embedder)
cfg = RunConfig(condition="local-rep", domains=("Musical_Instruments",),
                episodes=EpisodeConfig(requests=requests))
with tempfile.TemporaryDirectory() as tmp:
    prepared = prepare(cfg, "Musical_Instruments", embedder, Path(tmp) / "cache")
    for i in range(runs):
        store = RunStore.open(Path(tmp) / f"run{i}", cfg)
        agents = offline_agents(embedder, cfg.agents)
        with spaced_collections():
            asyncio.run(play_domain(cfg, store, prepared, agents, embedder, lambda: None))
        store.close()
"""
PINNED = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "RAYON_NUM_THREADS")


def counted(tree: Path, runs: int, requests: int) -> subprocess.Popen[str]:
    env = {**os.environ, **dict.fromkeys(PINNED, "1")}
    env |= {"PYTHONPATH": str(tree / "src"), "PYTHONHASHSEED": "0"}
    env["TOKENIZERS_PARALLELISM"] = "false"
    command = ["valgrind", "--tool=cachegrind", "--cache-sim=no"]
    command += ["--cachegrind-out-file=/dev/null", sys.executable, "-c", PLAY]
    return subprocess.Popen(
        [*command, str(runs), str(requests)],
        cwd=tree,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def instructions(process: subprocess.Popen[str]) -> int:
    _, err = process.communicate()
    found = re.search(r"I\s+refs:\s+([\d,]+)", err)
    if process.returncode or found is None:
        sys.exit(f"valgrind failed: {err.strip().splitlines()[-1] if err.strip() else 'no output'}")
    return int(found.group(1).replace(",", ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="*", type=Path, default=[Path(__file__).parents[1]])
    parser.add_argument("--requests", type=int, default=600)
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        sys.exit("valgrind is not installed: apt-get install valgrind")
    for tree in args.trees:
        two, three = (counted(tree.resolve(), runs, args.requests) for runs in (2, 3))
        warm = instructions(three) - instructions(two)
        print(
            f"{tree}: {warm / args.requests / 1e6:.2f} million instructions a warm offline "
            f"episode (local-rep, fixed platforms, N=6, {args.requests} requests)"
        )


if __name__ == "__main__":
    main()
