"""The copy-adoption table: each adoption cell paired with the cell of its condition where no
seat rewrites, the gain per adopting seat, what full adoption fixes by construction, and the
figure. No test says which strategy gains."""

from pathlib import Path
from typing import Any

import pytest

from recmarket.analysis.copy_adoption import adopters, adoption_table, condition_label
from recmarket.config import RunConfig
from recmarket.report.build import drawn_figure
from recmarket.report.copy_figures import copy_adoption
from recmarket.report.data import Cell, compact_rows
from recmarket.report.ticks import overlaps
from recmarket.run.runner import run
from recmarket.run.store import RunStore

BASE: dict[str, Any] = {
    "domains": ["Video_Games"],
    "condition": "no-rep",
    "episodes": {"requests": 24, "users_per_profile": 1},
}
SEEDS = (1, 2)
SEATS = ("P1", "P2", "P3", "P4", "P5", "P6")


def adopting(strategy: str, seats: int) -> dict[str, Any]:
    return {seat: {"copy": strategy, "params": {"intensity": 1.0}} for seat in SEATS[:seats]}


CELLS = {
    "none": {},
    "stuffing-1": adopting("copy-stuffing", 1),
    "stuffing-6": adopting("copy-stuffing", 6),
    "emphasis-2": adopting("copy-emphasis", 2),
    "stuffing-P3-alone": {"P3": {"copy": "copy-stuffing", "params": {"intensity": 1.0}}},
}


@pytest.fixture(scope="module")
def cells(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[str, RunConfig, list]]:
    """Each cell at two seeds, its seeds' rows pooled as the report pools them."""
    found = []
    for name, copy in CELLS.items():
        rows = []
        for seed in SEEDS:
            cfg = RunConfig.model_validate({**BASE, "seed": seed, "market": {"copy": copy}})
            out = tmp_path_factory.mktemp(f"{name}-{seed}")
            run(cfg, out).store.close()
            with RunStore.read(out) as store:
                rows += compact_rows(store.episodes(), {"replicate": seed})
        found.append((name, cfg, rows))
    return found


def by_cell(cells: list) -> dict[str, dict[str, Any]]:
    return {row["cell"]: row for row in adoption_table(cells)}


def test_a_cells_strategy_seats_and_condition_are_read_from_its_settings(cells: list) -> None:
    configs = {name: cfg for name, cfg, _ in cells}
    assert adopters(configs["none"]) == ("none", frozenset())
    assert adopters(configs["emphasis-2"]) == ("copy-emphasis", frozenset({"P1", "P2"}))
    assert condition_label(configs["none"]) == "NoRep"
    shared = configs["none"].model_copy(
        update={"condition": "local-rep", "reputation_scope": "shared"}
    )
    assert condition_label(shared) == "Shared-1"


def test_every_adoption_cell_is_paired_and_one_without_a_twin_says_so(cells: list) -> None:
    table = by_cell(cells)
    assert [table[n]["adopters"] for n in CELLS] == [0, 1, 6, 2, 1]
    assert [table[n]["in_order"] for n in CELLS] == [True, True, True, True, False]
    assert all("adopter_gain" in table[n] for n in CELLS if n != "none")
    alone = adoption_table([c for c in cells if c[0] != "none"])
    assert all(r["note"].startswith("no twin") and "adopter_gain" not in r for r in alone)


def test_the_gain_is_the_adopters_share_per_seat_over_the_same_seats_without_rewriting(
    cells: list,
) -> None:
    rows = {name: r for name, _, r in cells}
    seats = {"P1", "P2"}

    def share(name: str) -> float:
        return sum(r["top1_platform"] in seats for r in rows[name]) / len(rows[name])

    row = by_cell(cells)["emphasis-2"]
    assert row["adopter_gain"] == pytest.approx((share("emphasis-2") - share("none")) / 2, abs=1e-4)
    assert row["adopter_gain_low"] <= row["adopter_gain"] <= row["adopter_gain_high"]


def test_full_adoption_gains_nothing_by_construction_and_has_no_honest_seat(cells: list) -> None:
    full = by_cell(cells)["stuffing-6"]
    assert full["adopter_gain"] == full["adopter_gain_low"] == full["adopter_gain_high"] == 0.0
    assert "honest_loss" not in full and full["unsupported"] > 0
    assert "rewritten_low" not in full  # no records under NoRep


def test_the_figure_and_its_table(cells: list, tmp_path: Path) -> None:
    report = [Cell("copy-adoption", n, "copy-adoption", tmp_path, r, c) for n, c, r in cells]
    fig, table = drawn_figure(copy_adoption, report)
    assert overlaps(fig) == []
    levels = {"strategy", "condition", "adopters", "target_top1", "target_purchase", "regret"}
    gains = {"adopter_gain", "adopter_gain_low", "adopter_gain_high"}
    assert all(levels <= set(r) and (gains <= set(r)) == (r["adopters"] > 0) for r in table)
    assert {r["strategy"] for r in table} == {"none", "copy-stuffing", "copy-emphasis"}
