"""The label counterfactual's table: Exaggeration's label mix beside its Top-1 contrast, one
row per Low threshold, from tiny cells."""

import pytest

from recmarket.config import RunConfig
from recmarket.report.data import Cell, MissingCell, compact_rows
from recmarket.report.label_figures import label_counterfactual
from recmarket.run.runner import run
from recmarket.run.store import RunStore


@pytest.fixture(scope="module")
def cells(tmp_path_factory: pytest.TempPathFactory) -> list[Cell]:
    found = []
    for gap in (0.4, 0.6):
        for condition in ("no-rep", "local-rep"):
            cfg = RunConfig.model_validate(
                {
                    "domains": ["Video_Games"],
                    "condition": condition,
                    "market": {"composition": "equal"},
                    "episodes": {"requests": 48},
                    "agents": {"update": {"low_gap": gap}},
                }
            )
            out = tmp_path_factory.mktemp(f"{condition}-{gap}")
            run(cfg, out).store.close()
            with RunStore.read(out) as store:
                rows = compact_rows(store.episodes(), {"replicate": cfg.seed})
            found.append(Cell("label-counterfactual", f"{condition}/{gap}", "x", out, rows, cfg))
    return found


def test_each_threshold_has_its_label_mix_and_its_contrast(cells: list[Cell]) -> None:
    fig, rows = label_counterfactual(cells)
    assert fig is not None and [r["low_gap"] for r in rows] == [0.4, 0.6]
    for row in rows:
        mix = [row[f"exaggeration_{label}"] for label in ("high", "mixed", "low")]
        assert sum(mix) == pytest.approx(100, abs=0.05)
        for label in ("high", "mixed", "low"):  # each share with its interval
            low, high = map(float, row[f"exaggeration_{label}_ci"].strip("[]").split(", "))
            assert low <= row[f"exaggeration_{label}"] <= high
        assert row["low"] <= row["exaggeration_top1_change"] <= row["high"]
        assert row["interval"] == "percentile bootstrap (cluster-user), 50000 draws"


def test_a_threshold_without_both_arms_is_named(cells: list[Cell]) -> None:
    with pytest.raises(MissingCell, match=r"low_gap 0\.6 under local-rep"):
        label_counterfactual(cells[:3])
