"""The reputation benchmark end to end on small cells: an attack cell finds its honest
cell, its policy-only twin and its defence's baseline by settings, the split adds up, and
both figures draw. No test says which defence pays."""

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from recmarket.analysis.benchmark import COLUMNS, benchmark_table
from recmarket.analysis.worst_case import RANK_COLUMNS, WORST_FOUND_COLUMNS
from recmarket.config import RunConfig
from recmarket.report.benchmark_figures import gain_by_share, robustness_frontier
from recmarket.report.benchmark_worst import WORST, worst_case_ranking
from recmarket.report.build import drawn_figure
from recmarket.report.data import Cell, MissingCell, compact_rows
from recmarket.report.tables import write_csv_whole
from recmarket.run.runner import run
from recmarket.run.store import RunStore
from recmarket.study.attack_search import WORST_COLUMNS

BASE: dict[str, Any] = {
    "domains": ["Video_Games"],
    "condition": "local-rep",
    "reputation_scope": "shared",
    "episodes": {"requests": 24, "users_per_profile": 1},
}
WHITEWASH = {"attack": "whitewash", "params": {"policy": "exaggeration", "window": 6}}
TWIN = {"attack": "null", "params": {"policy": "exaggeration"}}
MARKETS = {
    "honest": {},
    "entrant": {"entrants": "strict@8"},
    "whitewash": {"attacks": {"P4": WHITEWASH}},
    "twin": {"attacks": {"P4": TWIN}},
}
DEFENCES = {"window": {}, "credibility": {"reputation": {"mechanism": "credibility"}}}


@pytest.fixture(scope="module")
def cells(tmp_path_factory: pytest.TempPathFactory) -> list[Cell]:
    """Each market under each defence at two seeds, the seeds' rows pooled."""
    found = []
    for defence, guarded in DEFENCES.items():
        for name, market in MARKETS.items():
            rows = []
            for seed in (1, 2):
                settings = {"composition": "all-strict", **market, **guarded}
                cfg = RunConfig.model_validate({**BASE, "seed": seed, "market": settings})
                out = tmp_path_factory.mktemp(f"{defence}-{name}-{seed}")
                run(cfg, out).store.close()
                with RunStore.read(out) as store:
                    rows += compact_rows(store.episodes(), {"replicate": seed})
            found.append(Cell("bench", f"{defence}/{name}", "reputation-benchmark", out, rows, cfg))
    return found


def test_each_attack_row_is_split_by_its_twin_and_measured_against_the_baseline(
    cells: list[Cell],
) -> None:
    table = benchmark_table([(c.name, c.config, c.rows) for c in cells])
    assert [(r["attack"], r["defence"]) for r in table] == [
        ("whitewash", "shared credibility"),
        ("whitewash", "shared window"),
    ]  # the twins are references, not attacks
    for row in table:
        assert row["note"] == ""
        split = row["gain_over_policy"] + row["gain_policy"]
        assert split == pytest.approx(row["gain_top1"], abs=2e-4)  # rounded to 4 places
        assert row["honest_loss_entrant_wait"] != ""
        assert row["attacker_share"] == round(1 / 6, 3)
    window = table[1]
    for loss in ("honest_loss_target_purchase", "honest_loss_regret", "honest_loss_entrant_wait"):
        assert window[loss] == window[f"{loss}_low"] == window[f"{loss}_high"] == 0.0, loss


def test_both_figures_draw_with_the_benchmarks_columns(cells: list[Cell]) -> None:
    _, rows = drawn_figure(gain_by_share, cells)
    assert rows and set(rows[0]) == {*COLUMNS, *WORST_FOUND_COLUMNS}
    assert all(rows[0][c] == "" for c in WORST_FOUND_COLUMNS)  # no search beside the cells
    _, frontier = drawn_figure(robustness_frontier, cells)
    assert {r["defence"] for r in frontier} == {"shared window", "shared credibility"}


def searched(cells: list[Cell], study: Path, gain: float) -> list[Cell]:
    """The cells as loaded from ``study``, whose searches found whitewash under the window
    at ``gain`` on held-out seeds."""
    worst = {
        "attack": "whitewash",
        "defence": "shared-window",
        "defence_label": "shared window",
        "parameters": '{"attackers": 2}',
        "attacker_share": round(2 / 6, 3),
        "gain_search": gain + 0.05,
        "gain_heldout": gain,
        "gain_heldout_low": gain - 0.01,
        "gain_heldout_high": gain + 0.01,
        "search_seeds": "1;2",
        "heldout_seeds": "1001;1002",
        "interval_method": "t over seeds",
    }
    (study / WORST).parent.mkdir(parents=True)
    write_csv_whole([worst], study / WORST, WORST_COLUMNS)
    return [dataclasses.replace(c, study=study) for c in cells]


def test_the_worst_case_joins_its_rows_and_ranks_the_defences(
    cells: list[Cell], tmp_path: Path
) -> None:
    with pytest.raises(MissingCell, match=r"no searches/worst\.csv"):
        worst_case_ranking(cells)
    beside = searched(cells, tmp_path, 0.5)  # above any menu gain: the worst case
    _, rows = drawn_figure(gain_by_share, beside)
    window = next(r for r in rows if r["defence"] == "shared window")
    assert (window["worst_found"], window["worst_found_search"]) == (0.5, 0.55)
    assert next(r for r in rows if r["defence"] != "shared window")["worst_found"] == ""
    _, ranks = drawn_figure(worst_case_ranking, beside)
    assert [list(r) for r in ranks] == [list(RANK_COLUMNS)] * 4  # together, and whitewash
    by = {r["defence"]: r for r in ranks if r["attack"] == "whitewash"}
    assert by["shared window"]["worst_case"] == 0.5
    assert by["shared window"]["worst_case_source"] == "search, held-out seeds"
    assert by["shared window"]["rank_worst"] == 2


def test_a_malformed_worst_case_file_is_named_with_its_line(
    cells: list[Cell], tmp_path: Path
) -> None:
    beside = searched(cells, tmp_path, 0.5)
    text = (tmp_path / WORST).read_text().replace("0.5,", "half,", 1)
    (tmp_path / WORST).write_text(text)
    with pytest.raises(
        ValueError, match=r"worst\.csv, line 2: gain_heldout: Input should be a valid number"
    ):
        worst_case_ranking(beside)
