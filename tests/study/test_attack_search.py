"""The attack search: the menu's cell is its first trial, the worst found is the best of its
trials and is re-measured on seeds the search never used, and a search killed part-way
resumes from its stored trials to the trials an uninterrupted one finds."""

import csv
import json
from pathlib import Path

import optuna
import pytest
from typer.testing import CliRunner

from recmarket.cli import app
from recmarket.run.executor import LocalExecutor
from recmarket.run.manifest import RunConflict
from recmarket.study.attack_search import HELDOUT_OFFSET, STORAGE, STUDY, search

SCALE = 0.04  # the benchmark's 300 requests cut to its floor of 12 a domain


def trials(out: Path) -> list[dict[str, str]]:
    with (out / "trials.csv").open() as f:
        return list(csv.DictReader(f))


@pytest.mark.slow  # three small searches of the benchmark's market: about a minute
def test_a_search_starts_at_the_menu_and_a_killed_one_resumes_to_the_same_trials(
    tmp_path: Path,
) -> None:
    whole = search("forge", "shared-window", 3, SCALE, tmp_path / "whole", LocalExecutor())
    first = json.loads(whole.trials[0]["parameters"])
    assert first == {"attackers": 1, "policy": "exaggeration", "rival": "P1", "share": 0.3}
    best = max(whole.trials, key=lambda t: t["gain"])
    assert whole.worst["gain_search"] == best["gain"] >= whole.trials[0]["gain"]
    searched = {int(s) for s in whole.worst["search_seeds"].split(";")}
    held = {int(s) for s in whole.worst["heldout_seeds"].split(";")}
    assert held == {s + HELDOUT_OFFSET for s in searched} and not held & searched
    assert whole.worst["gain_heldout_low"] <= whole.worst["gain_heldout"]
    assert whole.worst["gain_heldout"] <= whole.worst["gain_heldout_high"]
    # a kill mid-trial leaves the trial running, asked and never told: in the menu's trial,
    # then in a later one
    killed = tmp_path / "killed"
    storage = f"sqlite:///{killed / STORAGE}"
    killed.mkdir()
    menu = optuna.create_study(study_name=STUDY, storage=storage, direction="maximize")
    menu.enqueue_trial(first)
    menu.ask().suggest_float("share", 0.0, 1.0)
    search("forge", "shared-window", 2, SCALE, killed, LocalExecutor())
    left = optuna.load_study(study_name=STUDY, storage=storage)
    left.ask().suggest_float("share", 0.0, 1.0)
    resumed = search("forge", "shared-window", 3, SCALE, killed, LocalExecutor())
    assert [t["parameters"] for t in resumed.trials] == [t["parameters"] for t in whole.trials]
    assert [t["gain"] for t in resumed.trials] == [t["gain"] for t in whole.trials]
    assert trials(killed) == trials(tmp_path / "whole")
    with pytest.raises(RunConflict, match="holds the trials of another search"):
        search("flood", "shared-window", 3, SCALE, killed, LocalExecutor())


def test_attack_search_refuses_what_it_cannot_search(tmp_path: Path) -> None:
    for args, says in (
        (["--attack", "inject", "--defence", "brs-filter"], "no search space for it"),
        (["--attack", "forge", "--defence", "brs"], "--defence brs: not a benchmark defence"),
    ):
        refused = CliRunner().invoke(app, ["attack-search", *args, "--out", str(tmp_path)])
        assert refused.exit_code == 2 and says in refused.output
    assert not (tmp_path / "trials.csv").exists()
