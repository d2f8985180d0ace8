"""The reproduce plan: merged by one process at a time, replaced whole, read back intact."""

import json
import multiprocessing
from pathlib import Path

from recmarket.run.study_plan import PLAN, PlannedCell, read_plan, write_plan

MERGES = 60


def cell(experiment: str, k: int) -> PlannedCell:
    return PlannedCell(experiment, f"c{k}", f"cells/{experiment}-{k}", "d" * 64, "", 1.0)


def merge_many(out: Path, experiment: str) -> None:
    for k in range(MERGES):
        write_plan(out, [cell(experiment, k)])


def test_two_processes_merging_at_once_lose_no_cell_and_leave_a_whole_plan(
    tmp_path: Path,
) -> None:
    fork = multiprocessing.get_context("fork")
    merging = [fork.Process(target=merge_many, args=(tmp_path, e)) for e in ("one", "two")]
    for process in merging:
        process.start()
    for process in merging:
        process.join(120)
        assert process.exitcode == 0
    cells = read_plan(tmp_path)
    assert {(c.experiment, c.cell) for c in cells} == {
        (e, f"c{k}") for e in ("one", "two") for k in range(MERGES)
    }
    assert len(json.loads((tmp_path / PLAN).read_text())) == 2 * MERGES
    assert sorted(p.name for p in tmp_path.iterdir()) == [".recmarket.lock", PLAN]
