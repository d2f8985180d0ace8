"""Pricing a plan of experiments before anything runs or is spent."""

from pathlib import Path

import pytest
from typer.testing import CliRunner

from recmarket.cli import app
from recmarket.config import RunConfig
from recmarket.run.estimate import estimate, estimate_plan

PRICED = {
    "llm": {
        "models": {"m": {"name": "some-model", "input_price": 0.5, "output_price": 2.0}},
        "roles": {"evaluation": "m"},
    }
}


@pytest.mark.slow  # end to end: keeps the default selection under 4 minutes
def test_a_plan_prices_each_unique_cell_once_and_lists_it_under_each_experiment(
    tmp_path: Path,
) -> None:
    cells = estimate_plan(
        ["market-opening", "accountability"], tmp_path, tmp_path / "cache", 0.02, PRICED, seeds=1
    )
    assert len(cells) == 3 + 9  # accountability: three conditions (the instruction alone too)
    shared = [c for c in cells if c.run_dir == cells[1].run_dir]  # the equal NoRep market
    assert len(shared) == 2 and shared[0].cost == shared[1].cost > 0
    assert {c.experiment for c in shared} == {"market-opening", "accountability"}
    platform_centric = cells[0]
    assert platform_centric.cell == "condition=platform-centric" and platform_centric.calls > 0
    # only the evaluation roles are paid: calls per episode stay below the round's
    assert all(c.calls / c.episodes < 4 for c in cells)


def test_reproduce_estimate_prints_the_total_and_runs_nothing(tmp_path: Path) -> None:
    args = ["reproduce", "catalog-overlap", "--scale", "0.02", "--out", str(tmp_path / "r")]
    llm = ["--backend", "llm", "--llm-model", "m", "--llm-input-price", "0.27"]
    result = CliRunner().invoke(app, [*args, *llm, "--llm-output-price", "1.1", "--estimate"])
    assert result.exit_code == 0, result.output
    assert "total (shared cells once)" in result.stdout and "catalog-overlap" in result.stdout
    assert not (tmp_path / "r" / "cells").exists()
    offline = CliRunner().invoke(app, [*args, "--estimate"])
    assert "no role is answered by an LLM" in offline.stdout


def test_an_offline_plan_is_priced_by_planning_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No LLM answers any role: every cell costs nothing, and none is prepared or played
    (an offline --estimate of the whole plan once played every cell's sample requests)."""

    def played(*_: object) -> None:
        raise AssertionError("an offline cell was played to price it")

    monkeypatch.setattr("recmarket.run.estimate.estimate", played)
    cells = estimate_plan(["design-frontier"], tmp_path, tmp_path / "cache", 0.05)
    # of its 72 cells a seed, 8 without memory, 8 x 4 with a user's own and 8 x 4 with a
    # shared memory: those whose users remember keep one of 3 seeds and one user a profile,
    # who plays 38 rounds (1.25 x 6 platforms x W 10 / 2, experiments/schedule.py), those
    # that share a memory keep every seed, cut in episodes, and those without memory are
    # played on both (experiments/schedule.py)
    assert len(cells) == 40 + 40 * 3 and all(c.calls == c.cost == 0 for c in cells)
    assert sum(c.episodes for c in cells) == 40 * 38 * 6 * 3 + 40 * 3 * 30 * 3


def test_a_deepseek_run_is_estimated_at_peak_and_off_peak_with_its_cache_hits(
    tmp_path: Path,
) -> None:
    """DeepSeek bills half outside its peak hours and cache hits at a fiftieth of a miss:
    the estimate shows both columns, and the table's source."""
    deepseek = {"name": "deepseek-chat", "base_url": "https://api.deepseek.com"}
    cfg = RunConfig.model_validate(
        {
            "domains": ["Video_Games"],
            "episodes": {"requests": 30},
            "llm": {"models": {"m": deepseek}, "roles": {"default": "m"}},
        }
    )
    every = [r for r in estimate(cfg, tmp_path / "cache", sample=4) if r.model != "offline"]
    copywriter = next(r for r in every if r.role == "copywriter")
    assert copywriter.calls == copywriter.cost == 0  # no seat rewrites: it is never asked
    rows = [r for r in every if r.role != "copywriter"]
    assert rows and all(r.off_peak_cost == pytest.approx(r.cost / 2) for r in rows)
    assert all(0 < r.cached_tokens < r.prompt_tokens for r in rows)
    uncached = sum(r.prompt_tokens * 0.30 + r.completion_tokens * 1.20 for r in rows) / 1e6
    assert sum(r.cost for r in rows) < uncached  # the cache hits are cheaper
    flags = ["estimate", "--backend", "llm", "--llm-model", "deepseek-chat", "--llm-base-url"]
    flags += ["https://api.deepseek.com", "--domain", "Video_Games", "--requests", "30"]
    result = CliRunner(env={"COLUMNS": "200"}).invoke(app, flags)
    assert result.exit_code == 0, result.output
    assert "USD off-peak" in result.output and "as of 2026-11-15" in result.output


def test_a_copywriting_seats_calls_are_counted_and_priced(tmp_path: Path) -> None:
    """The copywriter is asked for the rewriting seat's proposals only: at most one call an
    episode, each priced with the model that answers it."""
    priced = {
        "models": {"m": {"name": "some-model", "input_price": 0.5, "output_price": 2.0}},
        "roles": {"copywriter": "m"},
    }
    copy = {"copy": {"P3": {"copy": "copy-stuffing", "params": {"intensity": 1.0}}}}
    cfg = RunConfig.model_validate(
        {
            "domains": ["Video_Games"],
            "episodes": {"requests": 30},
            "market": copy,
            "llm": priced,
        }
    )
    rows = {r.role: r for r in estimate(cfg, tmp_path / "cache", sample=8)}
    written = rows["copywriter"]
    assert 0 < written.calls <= 30 and written.prompt_tokens > 0 and written.cost > 0
    assert all(r.cost == 0 for role, r in rows.items() if role != "copywriter")
