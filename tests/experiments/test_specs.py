"""The Table 1 matrix as specs, and reproduce running them once per unique cell."""

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from recmarket.analysis import episodes_frame
from recmarket.cli import app
from recmarket.config_file import ConfigError
from recmarket.experiments.spec import builtin_names, load_spec
from recmarket.run.reproduce import plan

TABLE_1 = {
    "market-opening": 3,
    "market-expansion": 4,
    "shortlist-capacity": 3,
    "homogeneous-signaling": 3,
    "accountability": 6,
    "catalog-assignment": 4,
    "model-sensitivity": 8,
    "reputation-scope": 4,
    "catalog-overlap": 2,
}


def test_every_table_1_row_is_a_spec_with_its_cells() -> None:
    assert set(builtin_names()) == set(TABLE_1)
    for name, cells in TABLE_1.items():
        spec = load_spec(name)
        assert len(spec.cells) == cells, name
        configs = dict(spec.configs())
        assert len({c.digest() for c in configs.values()}) == cells  # cells really differ


def test_paper_settings_reach_the_cells() -> None:
    expansion = dict(load_spec("market-expansion").configs())
    assert [c.market.n_platforms for c in expansion.values()] == [6, 12, 18, 24]
    assert all(
        c.condition == "local-rep" and c.episodes.requests == 600 for c in expansion.values()
    )
    accountability = dict(load_spec("accountability").configs())
    assert accountability["equal/no-rep"].episodes.requests == 1200
    assert (
        accountability["strict-exaggeration/local-rep"].market.composition == "strict-exaggeration"
    )
    scope = dict(load_spec("reputation-scope").configs())
    assert scope["Style-6"].reputation_scope == "style"
    sensitivity = dict(load_spec("model-sensitivity").configs())
    assert all(c.domains == ("Sports_and_Outdoors",) for c in sensitivity.values())
    overlap = dict(load_spec("catalog-overlap").configs(scale=0.1))
    assert overlap["rho=1.0"].market.rho == 1.0 and overlap["rho=1.0"].episodes.requests == 60


def test_shared_cells_are_planned_once(tmp_path: Path) -> None:
    cells, configs = plan([], tmp_path)
    assert len(cells) == sum(TABLE_1.values())
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
    with pytest.raises(ConfigError, match="cell a"):
        load_spec(str(path)).configs()
    with pytest.raises(ConfigError, match="unknown experiment 'nope'"):
        load_spec("nope")


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
    assert isinstance(frame, pd.DataFrame) and set(frame["rho"]) == {0.1, 1.0}
    assert len(frame) == 2 * 3 * 24
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


def test_reproduce_directories_move_merge_and_name_a_bad_plan(tmp_path: Path, monkeypatch) -> None:
    runner = CliRunner()
    out = tmp_path / "r"
    base = ["--scale", "0.02", "--out", str(out), "--workers", "1"]
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
