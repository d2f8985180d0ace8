"""The Table 1 matrix as specs, and reproduce running them once per unique cell."""

import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from recmarket.analysis import episodes_frame
from recmarket.analysis.contrasts import contrast
from recmarket.cli import app
from recmarket.config_file import ConfigError
from recmarket.experiments.spec import ExperimentSpec, builtin_names, every_names, load_spec
from recmarket.report.data import load_cells
from recmarket.run.study_plan import plan

TABLE_1 = {
    "market-opening": 3,
    "market-expansion": 4,
    "shortlist-capacity": 3,
    "homogeneous-signaling": 3,
    "accountability": 9,  # NoRep, the Rep instruction alone, LocalRep: 3 markets
    "catalog-assignment": 4,
    "model-sensitivity": 8,
    "reputation-scope": 4,
    "catalog-overlap": 2,
}
BEYOND_THE_PAPER = {
    "strategic-adaptation": 4,
    "platform-entry": 4,
    "accountability-long": 4,
    "label-counterfactual": 4,
}
# Specs that name their own seeds: expanded cells, seeds included (7 attack cells x 5
# defences x 3 seeds; 2 N x 2 K x 2 orders x 9 accountability designs x 3 seeds; 9 attacks
# x 5 shares, 3 composites x 3 shares, 5 policy-only twins, the honest cell and its entrant
# twin x 16 defences x 3; 3 copy strategies x 6 adoption levels, two lone stuffers and the
# cell where none rewrites x 3 conditions x 3)
OWN_SEEDS = {
    "reputation-attacks": 105,
    "design-frontier": 216,
    "reputation-benchmark": 2928,
    "copy-adoption": 189,
}
OWN_SIZE = {"reputation-benchmark", "copy-adoption"}  # run when named, not by a bare reproduce


ONE_AXIS = {
    "market-expansion": "market.n_platforms",
    "shortlist-capacity": "market.shortlist_k",
    "catalog-overlap": "market.rho",
    "homogeneous-signaling": "market.composition",
}


def test_every_table_1_row_is_a_spec_with_its_cells() -> None:
    assert set(builtin_names()) == set(TABLE_1) | set(BEYOND_THE_PAPER) | set(OWN_SEEDS)
    # a bare reproduce runs all but the benchmark, a study of its own size
    assert set(builtin_names()) - set(every_names()) == OWN_SIZE
    for name, cells in {**TABLE_1, **BEYOND_THE_PAPER, **OWN_SEEDS}.items():
        spec = load_spec(name)
        assert len(spec.expanded()) == cells, name
        configs = dict(spec.configs())
        assert len({c.digest() for c in configs.values()}) == cells  # cells really differ
    for name, axis in ONE_AXIS.items():  # a sweep is written as the axis it is
        spec = load_spec(name)
        assert list(spec.axes) == [axis] and not spec.cells, name


def test_reproduce_replicates_every_cell_at_three_seeds_by_default(tmp_path: Path) -> None:
    cells, configs = plan(["catalog-overlap"], tmp_path)
    assert [c.cell for c in cells] == [
        f"rho={rho}/seed={seed}" for rho in (0.1, 1.0) for seed in (42, 43, 44)
    ]
    assert sorted(cfg.seed for cfg in configs.values()) == [42, 42, 43, 43, 44, 44]
    # the first seed is the configured one, and one seed is the unreplicated cell
    _, from_seven = plan(["catalog-overlap"], tmp_path, overrides={"seed": 7}, seeds=2)
    assert sorted(cfg.seed for cfg in from_seven.values()) == [7, 7, 8, 8]
    single, _ = plan(["catalog-overlap"], tmp_path, seeds=1)
    assert [c.cell for c in single] == ["rho=0.1", "rho=1.0"]
    assert {c.digest for c in single} <= {c.digest for c in cells}  # seed 42 is shared


def test_dynamic_market_specs_scale_the_entry_round_with_the_schedule() -> None:
    adaptation = dict(load_spec("strategic-adaptation").configs())
    assert all(c.market.platform_strategy == "adaptive" for c in adaptation.values())
    assert [c.market.reputation_in_use.mechanism for c in adaptation.values()][1:] == [
        "window",
        "beta",
        "decay",
    ]
    for scale, requests, entry in ((1.0, 600, 200), (0.1, 60, 20), (0.25, 150, 50)):
        entry_cells = dict(load_spec("platform-entry").configs(scale=scale))
        for cfg in entry_cells.values():
            assert cfg.episodes.requests == requests
            assert [(str(e.plays), e.after_rounds) for e in cfg.market.entrants] == [
                ("strict", entry)
            ]


def test_paper_settings_reach_the_cells() -> None:
    expansion = dict(load_spec("market-expansion").configs())
    assert [c.market.n_platforms for c in expansion.values()] == [6, 12, 18, 24]
    assert all(
        c.condition == "local-rep" and c.episodes.requests == 600 for c in expansion.values()
    )
    accountability = dict(load_spec("accountability").configs())
    assert accountability["equal/condition=no-rep"].episodes.requests == 1200
    strict = accountability["strict-exaggeration/condition=local-rep"]
    assert strict.market.composition == "strict-exaggeration" and strict.condition == "local-rep"
    scope = dict(load_spec("reputation-scope").configs())
    assert scope["Style-6"].reputation_scope == "style"
    sensitivity = dict(load_spec("model-sensitivity").configs())
    assert all(c.domains == ("Sports_and_Outdoors",) for c in sensitivity.values())
    overlap = dict(load_spec("catalog-overlap").configs(scale=0.1))
    assert overlap["rho=1.0"].market.rho == 1.0 and overlap["rho=1.0"].episodes.requests == 60


def test_shared_cells_are_planned_once(tmp_path: Path) -> None:
    cells, configs = plan([], tmp_path, seeds=2)  # every experiment but the benchmark
    unseeded = sum(TABLE_1.values()) + sum(BEYOND_THE_PAPER.values())
    seeded = sum(n for name, n in OWN_SEEDS.items() if name not in OWN_SIZE)
    assert len(cells) == 2 * unseeded + seeded
    assert len(configs) < len(cells)  # e.g. the equal 1,200-request NoRep market


def test_a_copied_spec_file_is_accepted_and_a_bad_one_named(tmp_path: Path) -> None:
    path = tmp_path / "mine.toml"
    path.write_text(
        'name = "mine"\ndescription = "x"\nrequests = 24\n'
        '[[cells]]\nname = "a"\nsettings = { condition = "no-rep" }\n'
    )
    assert load_spec(str(path)).cells[0].name == "a"
    path.write_text(
        'name = "mine"\ndescription = "x"\nrequests = 24\n'
        '[[cells]]\nname = "a"\nsettings = { market = { rho = 3 } }\n'
    )
    with pytest.raises(ConfigError, match="cell a") as refused:
        load_spec(str(path)).configs()
    assert str(refused.value) == (
        "experiment mine, cell a: market.rho: Input should be less than or equal to 1"
    )  # one line naming spec, cell and field: no pydantic dump, no link
    with pytest.raises(ConfigError, match="unknown experiment 'nope'"):
        load_spec("nope")
    for depth, said in ((40, "nested more than 32 tables or arrays deep"), (3000, "too deeply")):
        path.write_text(
            'name = "mine"\ndescription = "x"\nrequests = 24\n[base]\n'
            f"z = {'[' * depth}{']' * depth}\n"
        )
        with pytest.raises(ConfigError, match=f"{path}: .*{said}"):
            load_spec(str(path))


@pytest.mark.slow  # end to end: keeps the default selection under 4 minutes
def test_reproduce_runs_resumably_and_exports(tmp_path: Path) -> None:
    runner = CliRunner()
    args = ["reproduce", "catalog-overlap", "--scale", "0.04", "--out", str(tmp_path / "r")]
    first = runner.invoke(app, args)
    assert first.exit_code == 0, first.output
    assert "rho=1.0" in first.stdout
    out = tmp_path / "r"
    planned = json.loads((out / "plan.json").read_text())
    assert not any(Path(p["run_dir"]).is_absolute() for p in planned)  # relocatable
    stamps = {p["run_dir"]: (out / p["run_dir"] / "run.sqlite").stat().st_mtime for p in planned}
    again = runner.invoke(app, args)
    assert again.exit_code == 0
    assert all((out / d / "run.sqlite").stat().st_mtime == t for d, t in stamps.items())
    frame = episodes_frame(out / p["run_dir"] for p in planned)
    assert isinstance(frame, pd.DataFrame) and set(frame["market.rho"]) == {0.1, 1.0}
    assert len(frame) == 3 * 2 * 3 * 24  # three seeds of two cells, three domains
    table = pd.read_csv(out / "report" / "tables" / "cells.csv")
    assert (
        list(table["replicates"])
        == ["3 seeds (42, 43, 44) pooled: rates are means over the seeds"] * 2
    )
    # resumable per seed: only the seed whose store is gone runs again
    lost = next(p["run_dir"] for p in planned if p["cell"] == "rho=1.0/seed=43")
    shutil.rmtree(out / lost)
    assert runner.invoke(app, args).exit_code == 0
    for run_dir, stamp in stamps.items():
        assert ((out / run_dir / "run.sqlite").stat().st_mtime == stamp) == (run_dir != lost)
    exported = runner.invoke(
        app,
        [
            "export",
            str(out / planned[0]["run_dir"]),
            "--format",
            "csv",
            "--out",
            str(tmp_path / "e.csv"),
        ],
    )
    assert exported.exit_code == 0
    assert len(pd.read_csv(tmp_path / "e.csv")) == 3 * 24


@pytest.mark.slow  # end to end: keeps the default selection under 4 minutes
def test_reproduce_directories_move_merge_and_name_a_bad_plan(tmp_path: Path, monkeypatch) -> None:
    runner = CliRunner()
    out = tmp_path / "r"
    base = ["--scale", "0.02", "--out", str(out), "--workers", "1", "--seeds", "1"]
    assert runner.invoke(app, ["reproduce", "catalog-overlap", *base]).exit_code == 0
    assert runner.invoke(app, ["reproduce", "homogeneous-signaling", *base]).exit_code == 0
    experiments = {p["experiment"] for p in json.loads((out / "plan.json").read_text())}
    assert experiments == {"catalog-overlap", "homogeneous-signaling"}  # merged, not replaced

    moved = tmp_path / "elsewhere" / "copy"
    shutil.copytree(out, moved)
    shutil.rmtree(out)
    monkeypatch.chdir(tmp_path)  # another directory than the one reproduce ran from
    reported = runner.invoke(app, ["report", str(moved)])
    assert reported.exit_code == 0, reported.output
    assert (moved / "report" / "tables" / "cells.csv").is_file()

    (moved / "plan.json").write_text("{not json")
    bad = runner.invoke(app, ["report", str(moved)])
    assert bad.exit_code == 2 and "plan.json" in bad.output and "Traceback" not in bad.output


def grid(**extra) -> dict:
    return {"name": "g", "description": "a grid", "requests": 12, **extra}


def test_axes_and_seeds_cross_every_listed_cell() -> None:
    spec = ExperimentSpec.model_validate(
        grid(
            cells=[{"name": "equal", "requests": 24, "settings": {"market": {"rho": 0.5}}}],
            axes={"condition": ["no-rep", "local-rep"], "market.n_platforms": [3, 6]},
            seeds=[7, 8],
        )
    )
    configs = spec.configs()
    assert len(configs) == 2 * 2 * 2
    assert configs[0][0] == "equal/condition=no-rep/n_platforms=3/seed=7"
    for name, cfg in configs:
        assert cfg.market.rho == 0.5 and cfg.episodes.requests == 24  # the cell's own
        assert f"condition={cfg.condition}" in name and name.endswith(f"seed={cfg.seed}")
        assert f"n_platforms={cfg.market.n_platforms}" in name
    assert len({cfg.digest() for _, cfg in configs}) == 8


def test_a_named_axis_value_sets_several_settings_under_one_label() -> None:
    shared = {"reputation_scope": "shared", "market": {"reputation": {"mechanism": "decay"}}}
    spec = ExperimentSpec.model_validate(
        grid(
            cells=[{"name": "equal", "settings": {"market": {"rho": 0.5}}}],
            axes={
                "defence": [
                    {"name": "local", "settings": {"reputation_scope": "local"}},
                    {"name": "shared-decay", "settings": shared},
                ]
            },
        )
    )
    (local_name, local), (shared_name, decay) = spec.configs()
    assert (local_name, shared_name) == ("equal/defence=local", "equal/defence=shared-decay")
    assert local.reputation_scope == "local"
    assert local.market.reputation_in_use.mechanism == "window"
    assert decay.reputation_scope == "shared"
    assert decay.market.reputation_in_use.mechanism == "decay"
    assert decay.market.rho == 0.5  # the cell's own settings stay
    mixed = grid(axes={"defence": [{"name": "a", "settings": {}}, "shared"]})
    with pytest.raises(ValueError, match="every value as \\{ name, settings \\} or none"):
        ExperimentSpec.model_validate(mixed)


def test_a_grid_alone_needs_no_cells_and_bad_grids_are_refused() -> None:
    alone = ExperimentSpec.model_validate(grid(axes={"market.rho": [0.1, 1.0]}))
    assert [n for n, _ in alone.configs()] == ["rho=0.1", "rho=1.0"]
    for bad, message in (
        (grid(), "needs \\[\\[cells\\]\\], \\[axes\\], or both"),
        (grid(axes={"market.rho": []}), "at least one value"),
        (grid(axes={"market.rho": [0.1]}, seeds=[1, 1]), "repeats a seed"),
    ):
        with pytest.raises(ValueError, match=message):
            ExperimentSpec.model_validate(bad)
    with pytest.raises(ConfigError, match=r"cell rho=2\.0"):
        ExperimentSpec.model_validate(grid(axes={"market.rho": [2.0]})).configs()


def test_replications_over_seeds_are_pooled_by_the_report(tmp_path: Path) -> None:
    spec = tmp_path / "seeds.toml"
    spec.write_text(
        'name = "seeds"\ndescription = "two conditions, two seeds"\nrequests = 12\n'
        'domains = ["Video_Games"]\nseeds = [1, 2]\n'
        '[axes]\ncondition = ["no-rep", "local-rep"]\n'
    )
    shown = CliRunner().invoke(app, ["experiments", "show", str(spec)])
    assert shown.exit_code == 0 and "condition=local-rep/seed=2" in shown.stdout
    result = CliRunner().invoke(app, ["reproduce", str(spec), "--out", str(tmp_path / "r")])
    assert result.exit_code == 0, result.output
    cells = load_cells([tmp_path / "r"])["seeds"]
    assert set(cells) == {"condition=no-rep", "condition=local-rep"}
    norep, localrep = cells["condition=no-rep"], cells["condition=local-rep"]
    assert norep.seeds == (1, 2) and len(norep.rows) == 2 * 12
    per_seed = [
        np.mean([r["target_purchased"] for r in norep.rows if r["replicate"] == s]) for s in (1, 2)
    ]
    assert norep.macro["target_purchase"] == pytest.approx(np.mean(per_seed))
    difference = contrast(norep.rows, localrep.rows, lambda r: r["target_purchased"], draws=500)
    assert difference.design == "cluster-user x 2 seeds"  # seeds, then users within each
    table = pd.read_csv(tmp_path / "r" / "report" / "tables" / "cells.csv")
    assert (
        list(table["replicates"]) == ["2 seeds (1, 2) pooled: rates are means over the seeds"] * 2
    )
