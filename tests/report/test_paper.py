"""The paper comparison: every number is measurable from the built-in experiments, and the
verdicts follow the stated rules. (What the numbers are is not asserted anywhere.)"""

from pathlib import Path

import pytest

from recmarket.experiments.spec import builtin_names, load_spec
from recmarket.report.data import Cell
from recmarket.report.paper import (
    PaperNumber,
    agreement,
    cell_with,
    measured,
    metric_value,
    paper_numbers,
)
from tests.fixtures import episode_row


def test_every_number_singles_out_built_in_cells_by_settings_and_names_a_metric() -> None:
    numbers = paper_numbers()
    assert len(numbers) >= 70
    sections = {n.section.split(",")[0] for n in numbers}
    assert {"4.2", "4.3", "4.4", "4.5", "A.2", "A.4", "A.5", "A.6", "A.8"} <= sections
    experiments = {name: dict(load_spec(name).configs()) for name in builtin_names()}
    for n in numbers:
        if n.experiment is None:
            continue
        members = {
            name: Cell(n.experiment, name, "", Path("."), [], cfg)
            for name, cfg in experiments[n.experiment].items()
        }
        for settings in (n.cell, n.base, *n.cells):
            if settings is not None:
                assert cell_with(members, settings) is not None, (n.what, settings)
        assert n.metric


def cell(rows: list[dict]) -> Cell:
    return Cell("e", "c", "", Path("."), rows, None)


def test_metrics_are_macro_means_or_pooled_shares_as_the_paper_states() -> None:
    rows = [
        episode_row("A", same_item_top1=True, top1_policy="exaggeration", ord=0),
        episode_row("A", same_item_top1=True, top1_policy="strict", ord=60),
        episode_row("B", same_item_top1=True, top1_policy="exaggeration", ord=0),
        episode_row("B", purchased_policy="strict", rep_label="high", target_copies=3),
        episode_row("B", purchased_policy="strict", rep_label="mixed"),
        episode_row("A", purchased_policy="strict", rep_label="high"),
    ]
    c = cell(rows)
    assert metric_value(c, "same_item_wins:exaggeration") == pytest.approx((50 + 100) / 2)
    assert metric_value(c, "label_share:strict:high") == pytest.approx(100 * 2 / 3)
    # rounds 1-50 hold A's first and last rows (1 of 2) and all of B's (1 of 3)
    assert metric_value(c, "block_top1:exaggeration:1-50") == pytest.approx((50 + 100 / 3) / 2)
    with pytest.raises(ValueError, match="unknown"):
        metric_value(c, "nonsense:x")


def number(measure: str, paper: float, **extra) -> PaperNumber:
    return PaperNumber(section="x", what="y", paper=paper, measure=measure, experiment="e", **extra)


def test_verdicts() -> None:
    assert agreement(number("difference", -13.0), -2.0) == "agrees"
    assert agreement(number("difference", -13.0), 4.0) == "opposite"
    assert agreement(number("difference", 5.0), 0.0) == "no change"
    assert agreement(number("difference", 0.0, tolerance=2.0), 1.5) == "agrees"
    assert agreement(number("difference", 0.0, tolerance=2.0), 3.0) == "differs"
    assert agreement(number("ratio", 4.5), 1.2) == "agrees"
    assert agreement(number("ratio", 0.5), 1.2) == "opposite"
    assert agreement(number("spread", 4.6), 9.0) == "wider"
    assert agreement(number("level", 20.0), 31.0) == "level"
    assert agreement(number("level", 20.0), None) == "not run"
    assert agreement(PaperNumber(section="x", what="y", paper=1, measure="level"), 3.0) == (
        "no counterpart"
    )


def test_a_number_whose_cells_were_not_run_is_not_measured() -> None:
    n = number(
        "difference",
        8.0,
        cell={"market.n_platforms": 24},
        base={"market.n_platforms": 6},
        metric="rate:target_present",
    )
    assert measured(n, {"e": {}}) is None
