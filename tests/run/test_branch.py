"""Paired counterfactual branches: the parent's early rounds copied with their calls, later
rounds played under changed settings, and a branch that changes nothing equal to its parent."""

import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from recmarket.cli import app
from recmarket.config import RunConfig
from recmarket.run.branch import overrides
from recmarket.run.replay import all_calls
from recmarket.run.runner import run
from recmarket.run.store import RunStore

CFG = RunConfig.model_validate(
    {"domains": ["Video_Games"], "episodes": {"requests": 36, "users_per_profile": 1}}
)


def records(run_dir: Path) -> tuple[list[dict], list]:
    with RunStore.read(run_dir) as store:
        rows = sorted(store.episodes(), key=lambda r: r["ord"])
        calls = [(d, o, c.role, c.input, c.output) for d, o, c in all_calls(store)]
    return rows, calls


@pytest.fixture(scope="module")
def parent(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("parent")
    run(CFG, out).store.close()
    return out


def branch(parent: Path, out: Path, *flags: str) -> str:
    args = ["branch", str(parent), "--from-round", "3", "--out", str(out), *flags]
    done = CliRunner().invoke(app, args)
    assert done.exit_code == 0, done.output
    return " ".join(done.output.split())


@pytest.mark.slow  # end to end; keeps the default selection under 4 minutes
def test_a_branch_that_changes_nothing_is_its_parent_record_for_record(
    parent: Path, tmp_path: Path
) -> None:
    said = branch(parent, tmp_path / "null")
    assert records(tmp_path / "null") == records(parent)
    assert "rounds 3+: +0.00 pp; paired 95% [+0.00, +0.00]" in said
    assert "the paired interval is no width at all" in said
    branch(parent, tmp_path / "null")  # a rerun resumes: nothing left to play
    assert records(tmp_path / "null") == records(parent)


def test_a_changed_setting_acts_from_its_round_on_and_the_rounds_before_are_copied(
    parent: Path, tmp_path: Path
) -> None:
    said = branch(parent, tmp_path / "shared", "--set", "reputation_scope=shared")
    # one history shared by the domain, one seed: one cluster, so no interval, said so
    assert "rounds 3+: " in said and "no interval (cluster-domain: one cluster, one seed)" in said
    rows, calls = records(tmp_path / "shared")
    parent_rows, parent_calls = records(parent)
    early = {r["ord"] for r in parent_rows if r["round"] < 2}  # rounds 1 and 2
    assert early and [r for r in rows if r["ord"] in early] == [
        r for r in parent_rows if r["ord"] in early
    ]
    assert [c for c in calls if c[1] in early] == [c for c in parent_calls if c[1] in early]
    assert [r for r in rows if r["ord"] not in early] != [
        r for r in parent_rows if r["ord"] not in early
    ]  # one history for everybody from round 3: other records, other shortlists
    with RunStore.read(tmp_path / "shared") as store:
        assert store.config().reputation_scope == "shared"
        assert '"from_round": 3' in store.manifest()["branch"]


def test_a_branch_says_how_much_pairing_narrows_its_contrast(parent: Path, tmp_path: Path) -> None:
    said = branch(parent, tmp_path / "credulous", "--set", "agents.ranker.credence=1.0")
    assert "target purchase, branch minus parent, rounds 3+" in said
    assert "(percentile bootstrap (cluster-user), 50000 draws), unpaired [" in said
    assert "times narrower" in said


def test_bad_assignments_and_rounds_are_named(parent: Path, tmp_path: Path) -> None:
    assert overrides(["market.rho=1.0", "market.reputation_mechanism=decay"]) == {
        "market": {"rho": 1.0, "reputation_mechanism": "decay"}
    }
    for flags, said in (
        (["--set", "rho"], "--set 'rho': give KEY=VALUE"),
        (["--set", "market.rho=2"], "market.rho"),
        (["--set", f"market.rho={'[' * 40}{']' * 40}"], "--set: nested more than 32"),
        (["--set", f"market.rho={'[' * 3000}{']' * 3000}"], "--set: a value nested too deeply"),
        (["--set", "a." * 500 + "b=1"], "is deeper than any setting"),
    ):
        args = ["branch", str(parent), "--from-round", "3", "--out", str(tmp_path / "x"), *flags]
        done = CliRunner().invoke(app, args)
        assert done.exit_code == 2 and said in " ".join(done.stderr.split()), done.output


def refused(parent: Path, out: Path, *flags: str, from_round: str = "3") -> str:
    """The one line a refused branch says (exit 2, no traceback)."""
    args = ["branch", str(parent), "--from-round", from_round, "--out", str(out), *flags]
    done = CliRunner().invoke(app, args)
    assert done.exit_code == 2, done.output
    assert done.exception is None or isinstance(done.exception, SystemExit)
    return " ".join(done.stderr.split())


@pytest.mark.parametrize(
    ("from_round", "said"),
    [("0", "--from-round 0: rounds count from 1"), ("7", "have 6 rounds at most")],
)
def test_a_round_the_parent_does_not_have_is_one_line(
    parent: Path, tmp_path: Path, from_round: str, said: str
) -> None:
    assert said in refused(parent, tmp_path / "b", from_round=from_round)
    assert not (tmp_path / "b").exists()


@pytest.mark.parametrize(
    ("assignment", "named"),
    [
        ("seed=7", "seed"),
        ("episodes.requests=48", "episodes"),
        ('domains=["Video_Games", "Musical_Instruments"]', "domains"),
        ("episodes.users_per_profile=2", "episodes"),
    ],
)
def test_a_setting_that_chooses_the_requests_cannot_be_changed(
    parent: Path, tmp_path: Path, assignment: str, named: str
) -> None:
    said = refused(parent, tmp_path / "b", "--set", assignment)
    assert f"--set: {named} choose the requests" in said
    assert not (tmp_path / "b").exists()


def test_a_parent_that_stopped_before_the_copied_rounds_is_refused(
    parent: Path, tmp_path: Path
) -> None:
    stopped = tmp_path / "stopped"
    shutil.copytree(parent, stopped)
    with sqlite3.connect(stopped / "run.sqlite") as db:  # as a run killed at episode 10
        db.execute("DELETE FROM episodes WHERE ord >= 10")
    said = refused(stopped, tmp_path / "b")
    assert "lacks 2 of the 12 episodes of rounds 1-2" in said
    assert not (tmp_path / "b").exists()


def test_a_parent_another_process_writes_is_refused(parent: Path, tmp_path: Path) -> None:
    hold = (
        "import sys, time; from pathlib import Path; from recmarket.locks import WriterLock; "
        "lock = WriterLock(Path(sys.argv[1])); print('held', flush=True); time.sleep(60)"
    )
    writer = subprocess.Popen(
        [sys.executable, "-c", hold, str(parent)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert writer.stdout is not None and writer.stdout.readline().strip() == "held"
        said = refused(parent, tmp_path / "b")
    finally:
        writer.kill()
        writer.wait()
    assert f"is being written by another recmarket process (pid {writer.pid})" in said


@pytest.mark.slow  # end to end; keeps the default selection under 4 minutes
def test_an_existing_directory_must_hold_the_same_branch(parent: Path, tmp_path: Path) -> None:
    out = tmp_path / "b"
    branch(parent, out, "--set", "condition=no-rep")
    said = refused(parent, out, "--set", "condition=no-rep", from_round="5")
    assert "holds another branch (from_round 3 -> 5)" in said
    assert "not a branch" in refused(out.parent / "b", parent, "--set", "condition=no-rep")
    with sqlite3.connect(out / "run.sqlite") as db:  # killed after the entry, before the copy
        db.execute("DELETE FROM calls WHERE ord IN (SELECT ord FROM episodes WHERE round < 2)")
        db.execute("DELETE FROM episodes WHERE round < 2")
    branch(parent, out, "--set", "condition=no-rep")  # the rerun finishes the copy
    rows, _ = records(out)
    early = [r for r in records(parent)[0] if r["round"] < 2]
    assert [r for r in rows if r["round"] < 2] == early


def test_the_llm_guards_apply_to_llm_branches_only(parent: Path, tmp_path: Path) -> None:
    said = refused(parent, tmp_path / "b", "--budget", "1")
    assert "--budget applies to LLM runs only" in said


def test_a_branch_keeps_the_decisions_chances_its_parent_kept(tmp_path: Path) -> None:
    """A parent that keeps its decisions' chances: the branch copies them with the rounds
    it copies and keeps them for the rounds it plays, the same as the parent's where
    nothing changed."""
    parent = tmp_path / "parent"
    run(CFG.model_copy(update={"record_choices": True}), parent).store.close()
    branch(parent, tmp_path / "null")
    with RunStore.read(parent) as store, RunStore.read(tmp_path / "null") as copy:
        assert copy.choices() == store.choices()
        assert len(store.choices()) == store.count()
