"""The cost planner: each plan buys every cell the one way it prefers that the cell can be
bought, its wall time follows the stated assumptions, and the cheapest plan that meets the
deadline is chosen."""

from pathlib import Path

import pytest
from typer.testing import CliRunner

from recmarket.cli import app
from recmarket.experiments.spec import PAPER_MATRIX
from recmarket.run import cost_plan
from recmarket.run.cost_plan import cheapest, plan_cost
from recmarket.run.estimate import CellCost, estimate_plan


def cell(name: str, batchable: bool, stream: int = 1) -> CellCost:
    options = {
        "live": 10.0,
        "cached-input": 8.0,
        "off-peak": None,
        "flex": 4.0,
        "batch": 5.0 if batchable else None,
    }
    return CellCost(
        "e", name, name, 100, 1000.0, 5e5, 6e4, 8.0, 8.0, options, stream, 5, batchable, 10
    )


def test_a_plan_falls_back_to_live_where_a_cell_cannot_be_bought_its_way() -> None:
    found = plan_cost("batch + live", [cell("a", True), cell("b", False)])
    assert found.ways == {"batch": 1, "cached-input": 1}
    assert found.cost == 5.0 + 8.0 and found.standard == 20.0


def test_batch_rounds_set_the_wall_time_and_a_deadline_rules_them_out() -> None:
    cells = [cell("a", True), cell("b", True)]
    batched = plan_cost("batch + live", cells, batch_hours=2.0)
    assert batched.hours == 2.0 * (5 + cost_plan.RE_ASK_ROUNDS)
    plans, chosen = cheapest(cells, deadline=None, batch_hours=2.0)
    assert chosen is not None and chosen.name == "flex"  # 4 + 4 beats 5 + 5
    live = plan_cost("live", cells)
    _, in_time = cheapest(cells, deadline=live.hours * 1.01)
    assert in_time is not None and in_time.hours <= live.hours * 1.01
    assert {p.name for p in plans} >= {"live", "flex", "batch + live"}


def test_a_long_chain_of_episodes_is_the_floor_of_a_live_cells_wall_time() -> None:
    short, chained = (
        plan_cost("live", [cell("a", False)]),
        plan_cost("live", [cell("a", False, 400)]),
    )
    per_call = cost_plan.CALL_SECONDS + 60 / cost_plan.WRITE_SPEED
    assert chained.hours == pytest.approx(400 * 5 * per_call / 3600)
    assert short.hours < chained.hours


def test_no_plan_meets_an_impossible_deadline() -> None:
    assert cheapest([cell("a", True)], deadline=0.0)[1] is None


@pytest.mark.slow  # the paper's matrix priced whole (about 10 s)
def test_the_paper_matrix_costs_at_most_055_of_live_standard_on_a_provider_with_flex_and_batch(
    tmp_path: Path,
) -> None:
    priced = {"llm": {"models": {"m": {"name": "gpt-5-mini"}}, "roles": {"default": "m"}}}
    cells = estimate_plan(list(PAPER_MATRIX), tmp_path, tmp_path / "cache", 1.0, priced, seeds=1)
    _, chosen = cheapest(cells)
    assert chosen is not None and chosen.share is not None and chosen.share <= 0.55


def test_estimate_plan_prints_every_way_and_the_chosen_plan(tmp_path: Path) -> None:
    flags = ["estimate", "--backend", "llm", "--llm-model", "gpt-5-mini", "--requests", "24"]
    result = CliRunner().invoke(app, [*flags, "--plan", "--deadline", "100"])
    assert result.exit_code == 0, result.output
    for word in ("USD flex", "USD batch", "USD off-peak", "cheapest plan within 100 h"):
        assert word in result.stdout
