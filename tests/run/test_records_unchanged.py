"""Refactoring does not change results: four small cells (every condition, a shared scope,
copied catalogs with a rotation) give exactly the records the version before the layering
refactor stored (tests/run/golden, made by ``python -m tests.run.records`` at e0150de).
Columns added since (issue 12's top1_platform, regret, strategy) are compared as additions:
every stored column keeps its value."""

import gzip
import json
from pathlib import Path

import pytest

from tests.run.records import CELLS, run_cells

GOLDEN = Path(__file__).parent / "golden" / "records-e0150de.json.gz"


@pytest.fixture(scope="module")
def now(tmp_path_factory: pytest.TempPathFactory) -> dict:
    return json.loads(json.dumps(run_cells(tmp_path_factory.mktemp("cells"))))


@pytest.mark.parametrize("cell", list(CELLS))
def test_a_cell_stores_the_records_it_stored_before(now: dict, cell: str) -> None:
    before = json.loads(gzip.decompress(GOLDEN.read_bytes()))[cell]
    kept = [{k: row[k] for k in before["episodes"][0]} for row in now[cell]["episodes"]]
    assert kept == before["episodes"]
    added = {k for row in now[cell]["episodes"] for k in row} - set(before["episodes"][0])
    assert added == {"top1_platform", "regret", "strategy"}
    changed = [key for key, digest in now[cell]["calls"].items() if before["calls"][key] != digest]
    assert not changed, f"role calls differ in episodes {changed[:5]}"
    assert now[cell]["calls"].keys() == before["calls"].keys()
