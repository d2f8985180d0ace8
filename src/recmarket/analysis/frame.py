"""Episodes and role calls of one or many runs as pandas DataFrames, for analysis and audit."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pandas as pd

from recmarket.agents.llm.attempts import input_digest, read_attempts
from recmarket.analysis.attacks import HONEST, attacker, defence
from recmarket.analysis.market_measures import shown_at
from recmarket.config import RunConfig
from recmarket.run.replay import all_calls
from recmarket.run.store import RunStore


def flat_settings(cfg: RunConfig) -> dict[str, Any]:
    """Every setting of a run, one entry each, named by its path (``market.rho``,
    ``agents.ranker.position_weight``; top-level ones by their name); a list, or a table
    that holds none, as JSON text, so each is one value of a column."""
    flat: dict[str, Any] = {}

    def walk(value: Any, path: str) -> None:
        if isinstance(value, dict) and value:
            for key, inner in value.items():
                walk(inner, f"{path}.{key}" if path else str(key))
        else:
            flat[path] = json.dumps(value) if isinstance(value, list | dict) else value

    walk(json.loads(cfg.model_dump_json()), "")
    return flat


def measure_parts(cfg: RunConfig, rows: Iterable[dict[str, Any]]) -> dict[str, list[str]]:
    """Each measure a cell is measured by (``shown_at("cells")``), its parts of every
    episode, as JSON text, by column ``measure.NAME``. A measure's value over any group of
    episodes is its ``finish`` of the group's summed parts
    (``MARKET_MEASURES.get(NAME).make(cfg).finish``), so an export
    can be cut by any column and still give the measure as the report computes it."""
    rows = list(rows)
    columns = {}
    for measure in shown_at("cells"):
        parts = measure.make(cfg).parts
        columns[f"measure.{measure.name}"] = [json.dumps(list(parts(r))) for r in rows]
    return columns


def episodes_frame(run_dirs: Iterable[Path | str]) -> pd.DataFrame:
    """Every episode of the runs as one pandas frame, with each run's directory, every
    setting of its run (``flat_settings``; an episode's own column of the same name wins),
    its settings' hash, the attack and defence they amount to, and each market measure's
    parts of the episode (``measure_parts``) beside its rows."""
    frames = []
    for run_dir in run_dirs:
        with RunStore.read(Path(run_dir)) as store:
            cfg = store.config()
            rows = store.episodes()
        frame = pd.DataFrame(rows)
        frame.insert(0, "run_dir", str(run_dir))
        derived = {
            "config_hash": cfg.digest(),
            "attack": found[0] if (found := attacker(cfg)) else HONEST,
            "attacker_seat": found[1] if found else None,
            "defence": defence(cfg),
        }
        added: dict[str, object] = dict(measure_parts(cfg, rows))
        for column, value in (flat_settings(cfg) | derived).items():
            if column not in frame.columns and column not in added:
                added[column] = [value] * len(frame)
        # joined at once: a column at a time, pandas warns of a fragmented frame past 100
        frames.append(pd.concat([frame, pd.DataFrame(added, index=frame.index)], axis=1))
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
