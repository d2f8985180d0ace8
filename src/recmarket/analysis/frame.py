"""Episodes of one or many runs as a pandas DataFrame, with each cell's settings attached."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from recmarket.run.store import RunStore


def episodes_frame(run_dirs: Iterable[Path | str]) -> pd.DataFrame:
    frames = []
    for run_dir in run_dirs:
        store = RunStore.read(Path(run_dir))
        cfg = store.config()
        frame = pd.DataFrame(store.episodes())
        store.close()
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
        }
        for column, value in settings.items():
            frame[column] = value
        frames.append(frame)
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
