"""The design frontier: dominance on welfare and concentration, and a table with every
measure's interval, from small cells."""

from pathlib import Path

import pytest
from typer.testing import CliRunner

from recmarket.analysis.frontier import dominated, frontier_table
from recmarket.cli import app
from recmarket.config import RunConfig
from recmarket.report.build import drawn_figure
from recmarket.report.data import Cell, compact_rows
from recmarket.report.frontier_figures import frontier
from recmarket.report.ticks import overlaps
from recmarket.run.runner import run
from recmarket.run.store import RunStore


def design(welfare: float, hhi: float) -> dict:
    return {"target_purchase": welfare, "hhi_top1": hhi}


def test_a_design_is_dominated_only_by_one_no_worse_on_both_and_better_on_one() -> None:
    a, b, c, d = design(0.4, 0.3), design(0.5, 0.3), design(0.6, 0.5), design(0.4, 0.3)
    table = [a, b, c, d]
    assert dominated(a, table) and dominated(d, table)  # b: more welfare, same concentration
    assert not dominated(b, table) and not dominated(c, table)  # a trade-off: both stand
    assert not dominated(a, [a, d])  # equal designs do not dominate each other


@pytest.fixture(scope="module")
def cells(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[str, RunConfig, list]]:
    """Two designs under one shared history, each at two seeds: one cluster per seed."""
    found = []
    for name, mechanism in (("window", "window"), ("oracle", "oracle")):
        rows: list = []
        for seed in (1, 2):
            cfg = RunConfig.model_validate(
                {
                    "seed": seed,
                    "domains": ["Video_Games"],
                    "reputation_scope": "shared",
                    "episodes": {"requests": 24, "users_per_profile": 1},
                    "market": {"reputation": {"mechanism": mechanism}},
                }
            )
            out = tmp_path_factory.mktemp(name)
            run(cfg, out).store.close()
            with RunStore.read(out) as store:
                rows += compact_rows(store.episodes(), {"replicate": seed})
        found.append((name, cfg, rows))
    return found


def test_the_frontier_table_has_every_measure_with_its_interval(cells: list) -> None:
    table = frontier_table(cells)
    assert {r["design"] for r in table} == {"window", "oracle"}
    assert {r["accountability"] for r in table} == {"shared window", "shared oracle"}
    for row in table:
        for measure in ("target_purchase", "regret", "hhi_top1", "exposure_gini"):
            assert row[f"{measure}_low"] <= row[f"{measure}_high"], measure
        assert 0 < row["hhi_top1"] <= 1 and isinstance(row["dominated"], bool)
        assert row["interval"] == "t over 2 seeds, df 1 (cluster-domain x 2 seeds)"
    assert not table[0]["dominated"]  # the non-dominated come first
    fig, rows = drawn_figure(
        frontier, [Cell("design-frontier", n, "frontier", Path(), r, c) for n, c, r in cells]
    )
    assert rows == table and overlaps(fig) == []


def test_the_frontier_command_prints_the_table(tmp_path: Path) -> None:
    spec = tmp_path / "tiny.toml"
    spec.write_text(
        'name = "tiny"\ndescription = "two designs"\nrequests = 12\nfigure = "frontier"\n'
        'domains = ["Video_Games"]\n[axes]\ncondition = ["no-rep", "local-rep"]\n'
    )
    assert (
        CliRunner().invoke(app, ["reproduce", str(spec), "--out", str(tmp_path / "r")]).exit_code
        == 0
    )
    shown = CliRunner().invoke(app, ["frontier", str(tmp_path / "r")])
    assert shown.exit_code == 0, shown.output
    assert "HHI" in shown.stdout and "condition=no-rep" in shown.stdout
