"""docs/tutorial.md, run block by block in a fresh folder, as a reader would from the
repository root: every bash and python block must succeed and leave what the page says it
leaves. The one line that installs the example package is stood in for the way
tests/examples does it (its module importable, its entry points declared in a dist-info), so
the test installs nothing into the environment running it."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.plugins import declared_entry_points, dist_info

ROOT = Path(__file__).resolve().parents[1]
TUTORIAL = ROOT / "docs" / "tutorial.md"
INSTALL = "pip install -e examples/hedged-policy"


def blocks(text: str) -> list[tuple[str, str]]:
    """The page's fenced code blocks: (language, code)."""
    return re.findall(r"^```(bash|python)\n(.*?)^```", text, re.S | re.M)


@pytest.mark.slow  # end to end: every block of the page, about 20 s; .ci/run -m slow
def test_the_tutorial_runs_as_written(tmp_path: Path) -> None:
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    example = ROOT / "examples" / "hedged-policy"
    site = dist_info(
        tmp_path / "site", "hedged-policy", declared_entry_points(example / "pyproject.toml")
    )
    env = {
        **os.environ,
        "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]]),
        "PYTHONPATH": os.pathsep.join([str(site), str(example / "src"), *sys.path]),
    }
    found = blocks(TUTORIAL.read_text())
    assert [language for language, _ in found].count("bash") >= 5
    said = []
    for language, code in found:
        if language == "bash":
            code = code.replace(INSTALL, "true  # stood in for: " + INSTALL)
            command = ["bash", "-euo", "pipefail", "-c", code]
        else:
            command = [sys.executable, "-c", code]
        done = subprocess.run(
            command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
        )
        assert done.returncode == 0, f"{code}\n{done.stderr[-2000:]}"
        said.append(done.stdout)
    shown = next(out for out in said if "Outcome:" in out).splitlines()
    assert shown[1].startswith("Outcome:") and shown[2].startswith("Target:")
    assert (tmp_path / "runs" / "first" / "funnel.png").stat().st_size > 0
    assert any("hedged:" in out and "of Top-1" in out for out in said)
    assert (tmp_path / "runs" / "accountability" / "report" / "report.html").is_file()
    assert any(out.startswith("experiments: accountability") for out in said)
