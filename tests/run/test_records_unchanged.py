"""Refactoring does not change results: four small cells (every condition, a shared scope,
copied catalogs with a rotation) give exactly the records stored in tests/run/golden, made
by ``python -m tests.run.records tests/run/golden/records.json.gz``. A change that is meant
to change the model's behaviour (the user's prior belief in an unverified claim, say)
remakes the file in the same commit, and says so."""

import gzip
import json
import tomllib
from pathlib import Path

import pytest

from tests.run.records import CELLS, run_cells

GOLDEN = Path(__file__).parent / "golden" / "records.json.gz"
# The golden records as the defaults made them before the simulated user was fitted to real
# people, and the settings that keep that user.
BEFORE_FITTED = Path(__file__).parent / "golden" / "before-issue-51.json.gz"
BEFORE_SETTINGS = Path(__file__).resolve().parents[2] / "docs" / "people-before.toml"


def same_up_to_float_rounding(row: dict) -> dict:
    """A stored row whose floats compare equal to any within 1e-6: ``regret`` is a
    difference of float32 similarities (about 1e-7 apart at 1), whose last bits move with
    the BLAS kernel a numpy build picks on a machine (numpy 2.4 with OpenBLAS's Haswell
    kernel moved 15 of 48 values by up to 1.3e-7); every other field, and every role call,
    must match exactly."""
    return {
        k: pytest.approx(v, rel=1e-6, abs=1e-6) if isinstance(v, float) else v
        for k, v in row.items()
    }


# Columns added after the golden file was made, for markets its cells do not play: they
# must hold nothing there (the copy columns of a market where no seat rewrites).
ADDED_EMPTY = {"top1_rewritten", "bought_rewritten", "words_unsupported"}


def assert_same_records(before: dict, now: dict) -> None:
    """Fails where ``now``'s records of a cell are not ``before``'s."""
    kept = [{k: row[k] for k in before["episodes"][0]} for row in now["episodes"]]
    assert kept == [same_up_to_float_rounding(row) for row in before["episodes"]]
    added = {k for row in now["episodes"] for k in row} - set(before["episodes"][0])
    assert added <= ADDED_EMPTY
    assert all(row[k] is None for row in now["episodes"] for k in added)
    changed = [key for key, digest in now["calls"].items() if before["calls"][key] != digest]
    assert not changed, f"role calls differ in episodes {changed[:5]}"
    assert now["calls"].keys() == before["calls"].keys()


@pytest.fixture(scope="module")
def now(tmp_path_factory: pytest.TempPathFactory) -> dict:
    return json.loads(json.dumps(run_cells(tmp_path_factory.mktemp("cells"))))


@pytest.mark.parametrize("cell", list(CELLS))
def test_a_cell_stores_the_records_it_stored_before(now: dict, cell: str) -> None:
    assert_same_records(json.loads(gzip.decompress(GOLDEN.read_bytes()))[cell], now[cell])


def test_the_settings_of_the_user_before_it_was_fitted_play_its_records(tmp_path: Path) -> None:
    """docs/people-before.toml plays what the defaults played before the simulated user was
    fitted to real people: the records the golden file held then, every cell and call."""
    before = tomllib.loads(BEFORE_SETTINGS.read_text())
    stored = json.loads(gzip.decompress(BEFORE_FITTED.read_bytes()))
    now = run_cells(tmp_path, {name: {**cell, **before} for name, cell in CELLS.items()})
    for name in CELLS:
        assert_same_records(stored[name], json.loads(json.dumps(now[name])))
