"""Refactoring does not change results: four small cells (every condition, a shared scope,
copied catalogs with a rotation) give exactly the records stored in tests/run/golden, made
by ``python -m tests.run.records tests/run/golden/records.json.gz``. A change that is meant
to change the model's behaviour (the user's prior belief in an unverified claim, issue 18)
remakes the file in the same commit, and says so."""

import gzip
import json
from pathlib import Path

import pytest

from tests.run.records import CELLS, run_cells

GOLDEN = Path(__file__).parent / "golden" / "records.json.gz"


@pytest.fixture(scope="module")
def now(tmp_path_factory: pytest.TempPathFactory) -> dict:
    return json.loads(json.dumps(run_cells(tmp_path_factory.mktemp("cells"))))


@pytest.mark.parametrize("cell", list(CELLS))
def test_a_cell_stores_the_records_it_stored_before(now: dict, cell: str) -> None:
    before = json.loads(gzip.decompress(GOLDEN.read_bytes()))[cell]
    kept = [{k: row[k] for k in before["episodes"][0]} for row in now[cell]["episodes"]]
    assert kept == before["episodes"]
    assert {k for row in now[cell]["episodes"] for k in row} == set(before["episodes"][0])
    changed = [key for key, digest in now[cell]["calls"].items() if before["calls"][key] != digest]
    assert not changed, f"role calls differ in episodes {changed[:5]}"
    assert now[cell]["calls"].keys() == before["calls"].keys()
