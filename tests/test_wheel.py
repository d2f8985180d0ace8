"""The package a user installs is the package we test: ``pip install .`` (no ``-e``) ships
every file the code reads, and the installed command works from outside the checkout.

CI installs recmarket editable, where a file missing from the wheel is still found beside
the source; these tests are what catch it.
"""

from __future__ import annotations

import fnmatch
import os
import shutil
import subprocess
import sys
import tomllib
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "recmarket"


def test_every_data_file_of_the_package_is_declared_package_data() -> None:
    """A file beside the modules that no package-data pattern names is left out of the
    wheel (prices.toml once was: ``estimate --backend llm`` failed after ``pip install .``)."""
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    patterns = declared["package-data"]["recmarket"]
    data = [
        p.relative_to(PACKAGE).as_posix()
        for p in PACKAGE.rglob("*")
        if p.is_file() and p.suffix not in {".py", ".pyc"} and "__pycache__" not in p.parts
    ]
    assert data, "the package holds no data files: the walk looks in the wrong place"
    missing = [f for f in data if not any(fnmatch.fnmatch(f, pat) for pat in patterns)]
    assert not missing, f"not in [tool.setuptools.package-data]: {missing}"


@pytest.mark.slow
def test_the_built_wheel_installed_without_e_estimates_and_runs(tmp_path: Path) -> None:
    """Build the wheel, install it (no ``-e``, no index) into a fresh virtual environment
    that sees the installed dependencies, and run ``estimate --backend llm`` and a tiny
    ``run`` from a directory outside the checkout."""
    # built from a copy of what the package is made of: a build in the checkout would leave
    # build/, whose stale modules a later wheel would ship
    source = tmp_path / "source"
    skip = shutil.ignore_patterns("__pycache__", "*.egg-info")
    shutil.copytree(ROOT / "src", source / "src", ignore=skip)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    wheels = tmp_path / "wheels"
    pip_wheel = ["pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(wheels)]
    build = subprocess.run(
        [sys.executable, "-m", *pip_wheel, str(source)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert build.returncode == 0, build.stderr[-2000:]
    wheel = next(wheels.glob("recmarket-*.whl"))
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(system_site_packages=True, with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    install = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "-q",
            "--no-deps",
            "--no-index",
            str(wheel),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert install.returncode == 0, install.stderr[-2000:]
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}

    def recmarket(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(python), "-m", "recmarket", *args],
            cwd=outside,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )

    where = subprocess.run(
        [str(python), "-c", "import recmarket; print(recmarket.__file__)"],
        cwd=outside,
        env=env,
        capture_output=True,
        text=True,
    )
    assert Path(where.stdout.strip()).is_relative_to(env_dir), where.stdout + where.stderr
    estimate = recmarket(
        *("estimate", "--backend", "llm", "--llm-model", "deepseek-chat"),
        *("--domain", "Video_Games", "--requests", "12"),
    )
    assert estimate.returncode == 0, estimate.stderr[-2000:]
    assert "USD" in estimate.stdout or "$" in estimate.stdout, estimate.stdout
    ran = recmarket("run", "--domain", "Video_Games", "--requests", "12", "--out", "run")
    assert ran.returncode == 0, ran.stderr[-2000:]
    assert (outside / "run" / "run.sqlite").is_file()
