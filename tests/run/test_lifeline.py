"""Workers die with their parent: by the kernel's parent-death signal, and by the watch
alone where that signal is not had; and a reproduce killed outright leaves no worker."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

# A parent that starts one worker and prints the worker's pid, then waits to be killed.
PARENT = """
import subprocess, sys, time
worker = subprocess.Popen([sys.executable, "-c", sys.argv[1]], stdout=subprocess.PIPE)
print(worker.stdout.readline().decode().strip(), flush=True)
time.sleep(60)
"""
BOTH = """
import os, time
from recmarket.run.lifeline import die_with_parent
die_with_parent()
print(os.getpid(), flush=True)
time.sleep(60)
"""
WATCH_ONLY = """
import os, threading, time
from recmarket.run import lifeline
threading.Thread(target=lifeline._watch, args=(os.getppid(),), daemon=True).start()
print(os.getpid(), flush=True)
time.sleep(60)
"""


def alive(pid: int) -> bool:
    """Running, as opposed to gone or a zombie waiting to be reaped."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")


def children(pid: int) -> list[int]:
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def gone_within(pids: list[int], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not any(alive(p) for p in pids):
            return True
        time.sleep(0.05)
    return False


@pytest.mark.parametrize("worker", [BOTH, WATCH_ONLY], ids=["signal-and-watch", "watch-only"])
def test_a_worker_ends_when_its_parent_is_killed_outright(worker: str) -> None:
    parent = subprocess.Popen([sys.executable, "-c", PARENT, worker], stdout=subprocess.PIPE)
    assert parent.stdout is not None
    pid = int(parent.stdout.readline())
    try:
        time.sleep(0.3)
        assert alive(pid)  # the worker lives as long as its parent does
        parent.send_signal(signal.SIGKILL)
        parent.wait()
        assert gone_within([pid], 5.0), "the worker outlived its parent"
    finally:
        if alive(pid):
            os.kill(pid, signal.SIGKILL)


# One adaptive cell of 24 platforms on two domains: each domain is one unit (learners couple
# its streams), so each of two workers plays for many seconds after the parent is killed.
SPEC = """
name = "long-units"
description = "two long units"
requests = 1500
domains = ["Video_Games", "Sports_and_Outdoors"]
seeds = [1]

[base]
market = { platform_strategy = "adaptive", n_platforms = 24 }

[[cells]]
name = "adaptive"
settings = { condition = "no-rep" }
"""


@pytest.mark.slow  # end to end: runs in .ci/run with -m slow
def test_a_reproduce_killed_outright_leaves_no_worker_and_resumes(tmp_path: Path) -> None:
    spec = tmp_path / "long-units.toml"
    spec.write_text(SPEC)
    env = dict(os.environ, RECMARKET_CACHE=str(tmp_path / "cache"))
    args = [sys.executable, "-m", "recmarket", "reproduce", str(spec), "--scale", "1"]
    args += ["--workers", "2", "--out", str(tmp_path / "rep")]
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    deadline = time.monotonic() + 120
    workers: list[int] = []
    while len(workers) < 2 and time.monotonic() < deadline and proc.poll() is None:
        workers = [p for p in children(proc.pid) if alive(p)]
        time.sleep(0.05)
    assert len(workers) >= 2, "the reproduce finished before its workers could be seen"
    time.sleep(2.0)  # the workers are playing their units
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    try:  # their units have many seconds to go: ending now is the parent's death, not theirs
        assert gone_within(workers, 2.0), "reproduce workers outlived their parent"
    finally:
        for pid in workers:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
    rerun = subprocess.run(args, capture_output=True, text=True, env=env)
    assert rerun.returncode == 0, rerun.stderr  # it resumes: no orphan holds the store


def descendants(pid: int) -> list[int]:
    found, frontier = [], [pid]
    while frontier:
        kids = [c for p in frontier for c in children(p)]
        found += kids
        frontier = kids
    return found


def task_workers(pid: int) -> list[int]:
    """The Ray worker processes under ``pid`` that are playing units."""
    playing = []
    for p in descendants(pid):
        try:
            if Path(f"/proc/{p}/cmdline").read_bytes().startswith(b"ray::play_unit"):
                playing.append(p)
        except OSError:
            continue
    return playing


@pytest.mark.slow  # end to end: starts a local Ray cluster
def test_ray_task_workers_end_when_the_driver_is_killed_outright(tmp_path: Path) -> None:
    env = dict(os.environ, RECMARKET_CACHE=str(tmp_path / "cache"))
    args = [sys.executable, "-m", "recmarket", "run", "--executor", "ray", "--n", "24"]
    args += ["--platform-strategy", "adaptive", "--requests", "1500", "--out", str(tmp_path)]
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    deadline = time.monotonic() + 120
    workers: list[int] = []
    while not workers and time.monotonic() < deadline and proc.poll() is None:
        workers = [p for p in task_workers(proc.pid) if alive(p)]
        time.sleep(0.1)
    assert workers, "the run finished before its Ray tasks could be seen"
    time.sleep(1.0)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    try:  # each task has a whole domain of 24 adaptive platforms to go
        assert gone_within(workers, 5.0), "Ray task workers outlived the driver"
    finally:
        for pid in workers:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
