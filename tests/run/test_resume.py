"""Runs and reproduces killed with SIGKILL at many points, one of them inside a store
write, resume to exactly the records of an uninterrupted run."""

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

RUN = [
    "run",
    "--condition",
    "local-rep",
    "--domain",
    "Video_Games",
    "--requests",
    "600",
    "--seed",
    "9",
    "--json",
]
REPRODUCE = [
    "reproduce",
    "catalog-overlap",
    "shortlist-capacity",
    "--scale",
    "0.25",
    "--seeds",  # one replicate: resuming is per run directory, whatever its seed
    "1",
    "--workers",
    "1",
]


def command(args: list[str], out: Path) -> list[str]:
    return [sys.executable, "-m", "recmarket", *args, "--out", str(out)]


def stores(out: Path) -> list[Path]:
    return sorted(out.rglob("run.sqlite"))


def finished_episodes(out: Path) -> int:
    total = 0
    for path in stores(out):
        try:
            with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=1) as db:
                total += db.execute("SELECT COUNT(*) FROM episodes").fetchone()[0]
        except sqlite3.Error:
            pass
    return total


def writing(paths: list[Path]) -> bool:
    """Is a writer inside a transaction right now (holding the write lock)?"""
    for path in paths:
        try:
            db = sqlite3.connect(path, timeout=0, isolation_level=None)
            try:
                db.execute("BEGIN IMMEDIATE")
                db.execute("ROLLBACK")
            finally:
                db.close()
        except sqlite3.OperationalError:
            return True
    return False


def caught_writing(proc: subprocess.Popen, out: Path, seconds: float) -> bool:
    """Watch the stores for up to `seconds` and return as soon as a write is under way.

    A store's transactions are short, so one look can miss them; the paths are listed once
    per watch because walking the folder takes longer than a write.
    """
    until = time.monotonic() + seconds
    paths = stores(out)
    while proc.poll() is None and time.monotonic() < until:
        if writing(paths):
            return True
        paths = paths or stores(out)
    return False


def dump(out: Path) -> dict[str, tuple[list, list]]:
    result = {}
    for path in stores(out):
        with sqlite3.connect(path) as db:
            result[str(path.relative_to(out))] = (
                db.execute("SELECT * FROM episodes ORDER BY domain, ord").fetchall(),
                db.execute("SELECT * FROM calls ORDER BY domain, ord").fetchall(),
            )
    return result


def kill_and_resume(args: list[str], tmp_path: Path, thresholds: tuple[int, ...]) -> None:
    env = dict(os.environ, RECMARKET_CACHE=str(tmp_path / "cache"))
    clean, killed = tmp_path / "clean", tmp_path / "killed"
    subprocess.run(command(args, clean), check=True, capture_output=True, env=env)
    kills, during_write = 0, False
    for threshold in thresholds:
        proc = subprocess.Popen(
            command(args, killed), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env
        )
        deadline = time.monotonic() + 120
        while finished_episodes(killed) < threshold and proc.poll() is None:
            assert time.monotonic() < deadline
            time.sleep(0.002)
        # every kill waits a moment for a write to be under way, so that one of the six
        # lands inside a store write however the machine's load times the run
        during_write |= caught_writing(proc, killed, seconds=3.0)
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            kills += 1
        proc.wait()
    assert kills >= 5, f"only {kills} kills landed before the run finished"
    assert during_write, "no kill landed inside a store write"
    result = subprocess.run(command(args, killed), capture_output=True, text=True, env=env)
    assert result.returncode == 0, result.stderr
    assert dump(killed) == dump(clean)


@pytest.mark.slow  # end to end: runs in .ci/run with -m slow
def test_run_killed_at_six_points_resumes_to_the_clean_records(tmp_path: Path) -> None:
    kill_and_resume(RUN, tmp_path, (1, 80, 170, 260, 350, 440))


@pytest.mark.slow  # end to end: runs in .ci/run with -m slow
def test_adaptive_run_killed_at_six_points_resumes_to_the_clean_records(tmp_path: Path) -> None:
    """Learners shared across streams, rebuilt from the stored lessons, choose as before."""
    adaptive = ["--platform-strategy", "adaptive", "--learning-period", "7", "--entrants"]
    args = [*RUN, "--requests", "300", *adaptive, "adaptive@100"]
    kill_and_resume(args, tmp_path, (1, 40, 90, 140, 190, 240))


@pytest.mark.slow  # end to end: runs in .ci/run with -m slow
def test_reproduce_killed_at_five_points_resumes_to_the_clean_records(tmp_path: Path) -> None:
    kill_and_resume(REPRODUCE, tmp_path, (1, 200, 400, 600, 800))


def children(pid: int) -> list[int]:
    found = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True)
    return [int(p) for p in found.stdout.split()]


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.slow  # end to end: runs in .ci/run with -m slow
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_stops_reproduce_and_its_workers_and_the_rerun_finishes(
    tmp_path: Path, signum: int
) -> None:
    env = dict(os.environ, RECMARKET_CACHE=str(tmp_path / "cache"))
    args = [*REPRODUCE[:-1], "2"]  # two worker processes
    out = tmp_path / "r"
    proc = subprocess.Popen(command(args, out), stderr=subprocess.PIPE, text=True, env=env)
    deadline = time.monotonic() + 120
    while finished_episodes(out) < 50 and proc.poll() is None:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    workers = children(proc.pid)
    assert workers, "the workers had not started"
    proc.send_signal(signum)
    _, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 130, stderr
    assert f"stopped by {signal.Signals(signum).name}" in stderr and "Traceback" not in stderr
    time.sleep(0.5)
    assert not any(alive(pid) for pid in workers)
    stopped_at = finished_episodes(out)
    rerun = subprocess.run(command(args, out), capture_output=True, text=True, env=env)
    assert rerun.returncode == 0, rerun.stderr
    assert finished_episodes(out) > stopped_at
