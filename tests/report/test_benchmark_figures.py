"""The reputation benchmark end to end on small cells: an attack cell finds its honest
cell, its policy-only twin and its defence's baseline by settings, the split adds up, and
both figures draw. No test says which defence pays."""

from typing import Any

import pytest

from recmarket.analysis.benchmark import COLUMNS, benchmark_table
from recmarket.config import RunConfig
from recmarket.report.benchmark_figures import gain_by_share, robustness_frontier
from recmarket.report.build import drawn_figure
from recmarket.report.data import Cell, compact_rows
from recmarket.run.runner import run
from recmarket.run.store import RunStore

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
    assert rows and set(rows[0]) == set(COLUMNS)
    _, frontier = drawn_figure(robustness_frontier, cells)
    assert {r["defence"] for r in frontier} == {"shared window", "shared credibility"}
