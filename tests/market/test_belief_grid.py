"""The beliefs at which the target would be the noiseless Top-1, per episode."""

from pathlib import Path

import numpy as np

from recmarket.config import RunConfig
from recmarket.market.belief_grid import GRID, POINTS, mask_bits
from recmarket.run.runner import run
from recmarket.run.store import RunStore


def test_the_grid_at_no_belief_ranks_by_fit_alone(tmp_path: Path) -> None:
    """Believing no claim, the Top-1 is the best judged fit: the target exactly where it is
    strictly the best fit of its pool; a target not pooled is first nowhere."""
    cfg = RunConfig.model_validate(
        {"condition": "no-rep", "domains": ["Video_Games"], "episodes": {"requests": 48}}
    )
    run(cfg, tmp_path / "r").store.close()
    with RunStore.read(tmp_path / "r") as store:
        rows = store.episodes()
    none = int(np.flatnonzero((POINTS == 0).all(axis=1))[0])
    assert none == 0  # the grid's first point believes nothing
    for r in rows:
        bits = mask_bits(r["target_top1_grid"])
        assert len(bits) == len(GRID) ** 3
        if not r["target_present"]:
            assert r["target_top1_grid"] == "0"
            continue
        assert bits[none] == (r["target_fit_rank"] == 1), r["episode_id"]
    varied = [r for r in rows if 0 < mask_bits(r["target_top1_grid"]).sum() < len(POINTS)]
    assert varied  # beliefs move the target in and out of first place in some pools


def test_the_target_fit_is_read_from_the_pool_the_ranker_saw(tmp_path: Path) -> None:
    """Rank and gap come from the same noiseless fits: a pooled target has both (a gap only
    with a rival pooled), a gap is never negative, a target tied with its nearest rival
    shares no first place, and the requests leave close rivals in some pools only."""
    cfg = RunConfig.model_validate(
        {"condition": "no-rep", "domains": ["Video_Games"], "episodes": {"requests": 48}}
    )
    run(cfg, tmp_path / "r").store.close()
    with RunStore.read(tmp_path / "r") as store:
        rows = store.episodes()
    pooled = [r for r in rows if r["target_present"]]
    assert pooled and all(r["target_fit_rank"] is not None for r in pooled)
    assert all(
        r["target_fit_rank"] is None and r["target_fit_gap"] is None
        for r in rows
        if not r["target_present"]
    )
    gaps = [r["target_fit_gap"] for r in pooled if r["target_fit_gap"] is not None]
    assert gaps and min(gaps) >= 0
    assert all(r["target_fit_rank"] > 1 for r in pooled if r["target_fit_gap"] == 0)
    close = [g <= 0.1 for g in gaps]
    assert any(close) and not all(close)
