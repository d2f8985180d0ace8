"""recmarket migrate: a run and a reproduce cell stored under an older form of their settings,
and settings files written in one, rewritten once in the current form; a lookup then finds
them by the current hash alone, and anything else is left and said."""

import json
import sqlite3
import warnings
from pathlib import Path

import pytest
from typer.testing import CliRunner

from recmarket.cli import app
from recmarket.config import JSON_AS_PYDANTIC, RunConfig
from recmarket.market.older_forms import older_markets
from recmarket.run.manifest import RunConflict
from recmarket.run.migrate import migrate_runs
from recmarket.run.migrate_settings import migrate_settings
from recmarket.run.runner import run
from recmarket.run.store import STORE_NAME
from recmarket.run.study_plan import PLAN, read_plan

CFG = RunConfig.model_validate(
    {
        "condition": "local-rep",
        "domains": ["Sports_and_Outdoors"],
        "episodes": {"requests": 12},
        "market": {"reputation": {"mechanism": "decay", "params": {"rate": 0.5}}},
    }
)


def stored_as_older_form(run_dir: Path) -> str:
    """Play CFG into ``run_dir``, then make its manifest what the version before the current
    form wrote: the settings in the older form and their hash; that hash."""
    run(CFG, run_dir).store.close()
    full = json.loads(CFG.model_dump_json())
    older = {**full, "market": older_markets(full["market"])[0]}
    assert "reputation_decay" in older["market"]  # the older form's fields
    older_hash = CFG.older_digests()[0]
    with sqlite3.connect(run_dir / STORE_NAME) as db:
        db.execute(
            "UPDATE manifest SET value = ? WHERE key = 'config'",
            (json.dumps(older, **JSON_AS_PYDANTIC),),
        )
        db.execute("UPDATE manifest SET value = ? WHERE key = 'config_hash'", (older_hash,))
    return older_hash


def manifest(run_dir: Path) -> dict[str, str]:
    with sqlite3.connect(run_dir / STORE_NAME) as db:
        return dict(db.execute("SELECT key, value FROM manifest"))


def test_a_reproduce_cell_of_an_older_form_is_rewritten_renamed_and_found(tmp_path: Path) -> None:
    made = tmp_path / "made"
    older = stored_as_older_form(made)
    cell = tmp_path / "repro" / "cells" / f"local-rep-{older[:12]}"
    cell.parent.mkdir(parents=True)
    made.rename(cell)
    plan = [{"experiment": "x", "cell": "decay", "run_dir": f"cells/{cell.name}", "digest": older}]
    (tmp_path / "repro" / PLAN).write_text(json.dumps(plan))
    with pytest.raises(RunConflict, match="recmarket migrate"):  # found no more without it
        run(CFG, cell)

    done = migrate_runs(tmp_path / "repro")
    current = cell.with_name(f"local-rep-{CFG.digest()[:12]}")
    assert not cell.exists() and current.is_dir()
    assert done.runs == [f"{current}: settings rewritten in the current form (was {cell.name})"]
    stored = manifest(current)
    assert stored["config_hash"] == CFG.digest()
    assert json.loads(stored["config"]) == json.loads(CFG.model_dump_json())
    assert read_plan(tmp_path / "repro")[0].run_dir == f"cells/{current.name}"
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)  # read as the current form
        again = run(CFG, current)  # resumes: every episode is there
    assert len(again.store.episodes()) == 12
    again.store.close()
    assert migrate_runs(tmp_path / "repro").runs == []  # once


def test_a_run_hashed_otherwise_is_left_and_said(tmp_path: Path) -> None:
    run(CFG, tmp_path / "r").store.close()
    with sqlite3.connect(tmp_path / "r" / STORE_NAME) as db:
        db.execute("UPDATE manifest SET value = 'feed' WHERE key = 'config_hash'")
    done = migrate_runs(tmp_path)
    assert done.runs == [] and len(done.left) == 1
    assert "not because of an older form" in done.left[0]
    assert manifest(tmp_path / "r")["config_hash"] == "feed"


OLDER_TOML = """# my study
[market]
n_platforms = 6
reputation_mechanism = "decay"  # weigh newer records more
reputation_decay = 0.5
learning_rule = "exp3"
platform_strategy = "adaptive"

[market.behaviours.P4]
behaviour = "whitewash"
params = { below = 0.2 }
"""


def test_a_settings_file_is_rewritten_keeping_its_comments(tmp_path: Path) -> None:
    path = tmp_path / "study.toml"
    path.write_text(OLDER_TOML)
    with pytest.warns(DeprecationWarning):
        meant = RunConfig.model_validate(_toml(path))
    done = migrate_settings(tmp_path)
    assert done.rewritten == [f"{path}: market rewritten in the current form (study.toml.orig)"]
    text = path.read_text()
    assert text.startswith("# my study\n") and "n_platforms = 6" in text
    assert "reputation_decay" not in text and "behaviour" not in text
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        assert RunConfig.model_validate(_toml(path)).digest() == meant.digest()
    assert (tmp_path / "study.toml.orig").read_text() == OLDER_TOML
    assert migrate_settings(tmp_path).rewritten == []  # once


def test_yaml_and_an_axis_over_an_older_field(tmp_path: Path) -> None:
    (tmp_path / "run.yaml").write_text("market:\n  learning_rule: exp3\n  n_platforms: 6\n")
    (tmp_path / "spec.toml").write_text('name = "s"\n[axes]\n"market.learning_rule" = ["exp3"]\n')
    done = migrate_settings(tmp_path)
    assert done.rewritten == [
        f"{tmp_path / 'run.yaml'}: market rewritten in the current form (run.yaml.orig)"
    ]
    assert "learning:\n    rule: exp3" in (tmp_path / "run.yaml").read_text()
    axis = "axes.market.learning_rule names an older field; write it by hand"
    assert done.left == [f"{tmp_path / 'spec.toml'}: {axis}"]


def test_the_command_says_what_it_did_and_refuses_a_missing_directory(tmp_path: Path) -> None:
    (tmp_path / "study.toml").write_text(OLDER_TOML)
    said = CliRunner().invoke(app, ["migrate", str(tmp_path)])
    assert said.exit_code == 0, said.output
    assert "market rewritten in the current form" in said.stdout
    again = CliRunner().invoke(app, ["migrate", str(tmp_path)])
    assert "nothing of an older form" in again.stdout
    missing = CliRunner().invoke(app, ["migrate", str(tmp_path / "nope")])
    assert missing.exit_code == 2 and "not a directory" in missing.stderr


def _toml(path: Path) -> dict:
    import tomllib

    return tomllib.loads(path.read_text())
