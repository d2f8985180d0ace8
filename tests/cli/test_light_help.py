"""Commands that answer at once: --help (the command's and every subcommand's) imports none
of the heavy libraries; they load when a command that needs them runs."""

import subprocess
import sys

import pytest

HEAVY = ("pandas", "matplotlib", "scipy", "openai", "ray")


@pytest.mark.parametrize("args", [["--help"], ["reproduce", "--help"], ["llm", "audit", "--help"]])
def test_help_imports_no_heavy_library(args: list[str]) -> None:
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "recmarket", *args],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    imported = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()}
    assert not imported & set(HEAVY), sorted(imported & set(HEAVY))
    assert "recmarket.cli" in imported  # the check read the import log it meant to
