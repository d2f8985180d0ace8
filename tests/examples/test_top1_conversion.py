"""The example measure package (examples/top1-conversion-measure), installed the way pip
installs it: after a reproduce of its spec, the frontier and the report's cells table carry
its column with an interval, and the report's measures table names its distribution; a
single run's --json carries it beside the built-in measures."""

import csv
import json
from pathlib import Path

import pytest

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
