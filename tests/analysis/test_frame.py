"""Episodes and role calls as tables: every call of a run, in order, auditable."""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from recmarket.analysis import calls_frame, episodes_frame
from recmarket.analysis.market_measures import MARKET_MEASURES, market_measures, shown_at
from recmarket.analysis.shares import share_of
from recmarket.catalogue.measures import MarketMeasure
from recmarket.cli import app
from recmarket.config import EpisodeConfig, RunConfig
from recmarket.run.replay import all_calls
from recmarket.run.runner import run


def test_calls_frame_holds_every_role_call_in_order(tmp_path: Path) -> None:
    cfg = RunConfig(
        condition="local-rep", episodes=EpisodeConfig(requests=12), domains=("Video_Games",)
    )
    store = run(cfg, tmp_path / "run").store
    frame = calls_frame([tmp_path / "run"])
    stored = len(list(all_calls(store)))
    assert len(frame) == stored > 12 * 5
    first = frame[frame["ord"] == 0]
    assert list(first["seq"]) == list(range(len(first)))
    assert list(first["role"][:2]) == ["query", "need"]
    query = first.iloc[0]
    assert json.loads(query["input"])["target"]["title"]
    assert json.loads(query["output"])["query_text"]

    out = tmp_path / "calls.csv"
    result = CliRunner().invoke(
        app, ["export", "--calls", str(tmp_path / "run"), "--format", "csv", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert len(pd.read_csv(out)) == len(frame)


def test_episodes_frame_carries_every_setting_of_its_run_by_path(tmp_path: Path) -> None:
    cfg = RunConfig.model_validate(
        {
            "domains": ["Video_Games"],
            "episodes": {"requests": 12},
            "market": {"attacks": {"P4": {"attack": "sybil", "params": {"seats": 2}}}},
        }
    )
    run(cfg, tmp_path / "run")
    frame = episodes_frame([tmp_path / "run"])
    row = frame.iloc[0]
    assert row["market.n_platforms"] == 6 and row["episodes.requests"] == 12
    assert row["market.attacks.P4.attack"] == "sybil"
    assert row["market.attacks.P4.params.seats"] == 2
    assert row["agents.ranker.position_weight"] == cfg.agents.ranker.position_weight
    assert json.loads(row["domains"]) == ["Video_Games"] and row["seed"] == 42
    assert row["attack"] == "sybil" and len(row["config_hash"]) == 64


def test_the_episodes_export_gives_every_registered_measure_as_the_report_computes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An outside measure (registered here) appears beside the built-in ones, and summing
    any measure's exported parts over the run and finishing them gives the cell's value."""
    bought_first = MarketMeasure(
        "bought_first",
        "bought first",
        ("top1_platform", "purchased_platform"),
        "decided episodes whose user bought the candidate ranked first",
        lambda cfg: share_of(
            lambda r: r.get("top1_platform") is not None,
            lambda r: r["purchased_platform"] == r["top1_platform"],
            scale=1.0,
        ),
    )
    monkeypatch.setitem(MARKET_MEASURES._items, "bought_first", bought_first)
    cfg = RunConfig(
        condition="local-rep", episodes=EpisodeConfig(requests=24), domains=("Video_Games",)
    )
    store = run(cfg, tmp_path / "run").store
    cell = market_measures(cfg, store.episodes(), draws=10)
    frame = episodes_frame([tmp_path / "run"])
    for measure in shown_at("cells"):
        summed = np.sum([json.loads(p) for p in frame[f"measure.{measure.name}"]], axis=0)
        value = float(measure.make(cfg).finish(summed))
        assert round(value, 4) == pytest.approx(cell[measure.name], nan_ok=True), measure.name
    assert "measure.bought_first" in frame.columns
