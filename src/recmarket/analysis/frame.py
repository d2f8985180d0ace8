"""Episodes and role calls of one or many runs as pandas DataFrames, for analysis and audit."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import asdict
from pathlib import Path

import pandas as pd

from recmarket.agents.llm.attempts import input_digest, read_attempts
from recmarket.analysis.attacks import HONEST, attacker, defence
from recmarket.run.replay import all_calls
from recmarket.run.store import RunStore


def episodes_frame(run_dirs: Iterable[Path | str]) -> pd.DataFrame:
    """Every episode of the runs as one pandas frame, with each run's directory and settings
    beside its rows."""
    frames = []
    for run_dir in run_dirs:
        with RunStore.read(Path(run_dir)) as store:
            cfg = store.config()
            frame = pd.DataFrame(store.episodes())
        frame.insert(0, "run_dir", str(run_dir))
        settings = {
            "config_hash": cfg.digest(),
            "seed": cfg.seed,
            "reputation_scope": cfg.reputation_scope,
            "n_platforms": cfg.market.n_platforms,
            "shortlist_k": cfg.market.shortlist_k,
            "rho": cfg.market.rho,
            "p_hit": cfg.market.p_hit,
            "composition": str(cfg.market.composition),
            "rotation": cfg.market.rotation,
            "memory_window": cfg.market.memory_window,
            "requests": cfg.episodes.requests,
            "attack": found[0] if (found := attacker(cfg)) else HONEST,
            "attacker_seat": found[1] if found else None,
            "defence": defence(cfg),
        }
        for column, value in settings.items():
            frame[column] = value
        frames.append(frame)
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def calls_frame(run_dirs: Iterable[Path | str]) -> pd.DataFrame:
    """Every role call of the runs, one row each: which episode, which role, in what order,
    and its typed input and output as JSON text (output null where the role failed), and
    for LLM calls every attempt (raw reply, validation error, re-ask), so queries,
    explanations, reasons, reviews and labels can be audited with ordinary table tools."""
    rows = []
    for run_dir in run_dirs:
        with RunStore.read(Path(run_dir)) as store:
            episode_ids = {(e["domain"], e["ord"]): e["episode_id"] for e in store.episodes()}
            attempts = read_attempts(store.db)
            for domain, order, call in all_calls(store):
                tried = attempts.get((call.role, input_digest(call.input)), [])
                rows.append(
                    {
                        "run_dir": str(run_dir),
                        "domain": domain,
                        "ord": order,
                        "episode_id": episode_ids.get((domain, order)),
                        "seq": call.seq,
                        "role": call.role,
                        "input": json.dumps(call.input, ensure_ascii=False),
                        "output": json.dumps(call.output, ensure_ascii=False),
                        "attempts": json.dumps([asdict(a) for a in tried], ensure_ascii=False),
                    }
                )
    columns = [
        *("run_dir", "domain", "ord", "episode_id", "seq", "role", "input", "output"),
        "attempts",
    ]
    return pd.DataFrame(rows, columns=columns)
