"""The code base stays lint-clean and formatted (ruff is a test extra, so CI checks it)."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PATHS = ["src", "tests", "scripts", "benchmarks"]


@pytest.mark.parametrize("command", [["check"], ["format", "--check"]], ids=["lint", "format"])
def test_ruff_is_clean(command: list[str]) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "ruff", *command, *PATHS], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr
