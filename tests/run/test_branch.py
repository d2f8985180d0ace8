"""Paired counterfactual branches: the parent's early rounds copied with their calls, later
rounds played under changed settings, and a branch that changes nothing equal to its parent."""

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
    said = branch(parent, tmp_path / "oracle", "--set", "market.reputation.mechanism=oracle")
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
    ):
        args = ["branch", str(parent), "--from-round", "3", "--out", str(tmp_path / "x"), *flags]
        done = CliRunner().invoke(app, args)
        assert done.exit_code == 2 and said in " ".join(done.stderr.split()), done.output
    zero = ["branch", str(parent), "--from-round", "0", "--out", str(tmp_path / "z")]
    done = CliRunner().invoke(app, zero)
    assert done.exit_code != 0
