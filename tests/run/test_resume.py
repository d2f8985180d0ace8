"""A run killed with SIGKILL at any point resumes to exactly the records of a clean run."""

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

ARGS = [
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


def command(out: Path) -> list[str]:
    return [sys.executable, "-m", "recmarket", *ARGS, "--out", str(out)]


def finished_episodes(out: Path) -> int:
    try:
        with sqlite3.connect(f"file:{out / 'run.sqlite'}?mode=ro", uri=True, timeout=1) as db:
            return db.execute("SELECT COUNT(*) FROM episodes").fetchone()[0]
    except sqlite3.Error:
        return 0


def dump(out: Path) -> tuple[list, list]:
    with sqlite3.connect(out / "run.sqlite") as db:
        episodes = db.execute("SELECT * FROM episodes ORDER BY domain, ord").fetchall()
        calls = db.execute("SELECT * FROM calls ORDER BY domain, ord, seq").fetchall()
    return episodes, calls


def test_kill_nine_at_several_points_then_resume_equals_a_clean_run(tmp_path: Path) -> None:
    env = dict(os.environ, RECMARKET_CACHE=str(tmp_path / "cache"))
    clean, killed = tmp_path / "clean", tmp_path / "killed"
    subprocess.run(command(clean), check=True, capture_output=True, env=env)
    kills = 0
    for threshold in (1, 150, 400):
        proc = subprocess.Popen(
            command(killed), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env
        )
        deadline = time.monotonic() + 120
        while finished_episodes(killed) < threshold and proc.poll() is None:
            assert time.monotonic() < deadline
            time.sleep(0.002)
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            kills += 1
        proc.wait()
    assert kills >= 2, "the run finished before it could be killed"
    assert finished_episodes(killed) < 600
    result = subprocess.run(command(killed), capture_output=True, text=True, env=env)
    assert result.returncode == 0, result.stderr
    assert dump(killed) == dump(clean)
