"""The example measure package (examples/top1-conversion-measure), installed the way pip
installs it: after a reproduce of its spec, the frontier and the report's cells table carry
its column with an interval, and the report's measures table names its distribution; a
single run's --json carries it beside the built-in measures."""

import csv
import importlib.util
import json
from pathlib import Path

import pytest

from recmarket.analysis.bootstrap import point
from recmarket.analysis.frontier import design_row
from recmarket.analysis.funnel import funnel
from recmarket.analysis.market_measures import MARKET_MEASURES, market_measures
from recmarket.config import EpisodeConfig, RunConfig
from recmarket.report.data import Cell
from recmarket.report.paper import metric_value
from recmarket.report.ppi_table import outcomes
from recmarket.run.runner import run
from tests.plugins import EXAMPLES, installed_example, recmarket


@pytest.mark.slow  # end to end: keeps the default selection under 4 minutes
def test_the_example_measure_is_a_column_of_the_frontier_and_the_report(tmp_path: Path) -> None:
    paths = installed_example("top1-conversion-measure", tmp_path / "site")
    out = tmp_path / "reproduce"
    spec = EXAMPLES / "top1-conversion-measure" / "experiment.toml"
    recmarket("reproduce", str(spec), "--scale", "0.5", "--out", str(out), paths=paths)
    assert "top-1 conversion" in recmarket("frontier", str(out), paths=paths)
    with (out / "report" / "tables" / "cells.csv").open(newline="") as fh:
        cells = list(csv.DictReader(fh))
    assert len(cells) == 2
    for cell in cells:
        low, value, high = (float(cell[f"top1_conversion{e}"]) for e in ("_low", "", "_high"))
        assert 0.0 <= low <= value <= high <= 1.0
    with (out / "report" / "tables" / "measures.csv").open(newline="") as fh:
        measures = {row["measure"]: row for row in csv.DictReader(fh)}
    assert measures["top1_conversion"]["distribution"] == "recmarket-top1-conversion"
    assert len(measures["top1_conversion"]["digest"]) == 64
    assert measures["hhi_top1"]["distribution"] == "recmarket"


def test_the_example_measure_is_in_run_json(tmp_path: Path) -> None:
    paths = installed_example("top1-conversion-measure", tmp_path / "site")
    config = EXAMPLES / "top1-conversion-measure" / "run.toml"
    printed = recmarket(
        "run",
        "--config",
        str(config),
        "--requests",
        "12",
        "--out",
        str(tmp_path / "r"),
        "--json",
        paths=paths,
    )
    measures = json.loads(printed)["measures"]
    assert {"top1_conversion", "target_purchase", "hhi_top1"} <= set(measures)
    mine = measures["top1_conversion"]
    assert 0.0 <= mine["low"] <= mine["estimate"] <= mine["high"] <= 1.0
    assert "bootstrap" in measures["interval"]


def test_the_example_measure_reaches_every_place_its_declaration_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The example's measure, registered as its entry point registers it, is shown where
    its declaration says (by default: wherever a cell is measured with an interval) and
    nowhere else: cells and run --json, the frontier, the paper comparison and the PPI
    table, not the funnel."""
    source = EXAMPLES / "top1-conversion-measure" / "src" / "recmarket_top1_conversion"
    spec = importlib.util.spec_from_file_location("top1_conversion", source / "__init__.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    mine = module.TOP1_CONVERSION
    monkeypatch.setitem(MARKET_MEASURES._items, mine.name, mine)
    assert mine.shown == {"cells", "frontier", "paper", "ppi"}
    cfg = RunConfig(episodes=EpisodeConfig(requests=12), domains=("Video_Games",))
    rows = run(cfg, tmp_path / "run").store.episodes()
    value = point(rows, mine.make(cfg))
    assert 0.0 <= value <= 1.0
    assert market_measures(cfg, rows, draws=20)["top1_conversion"] == round(value, 4)
    assert "top1_conversion_high" in design_row("d", cfg, rows)
    assert metric_value(Cell("e", "c", "", tmp_path, rows, cfg), "top1_conversion") == (
        pytest.approx(100 * value)
    )
    assert "top1_conversion" in outcomes(cfg)
    assert "top1_conversion" not in funnel(rows, cfg)["macro"]
