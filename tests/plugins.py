"""Installed-looking packages for tests: a module and a ``*.dist-info`` with entry points on
a directory that a subprocess (or ``sys.path``) can import from, as ``pip install`` leaves
them, without installing anything."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

from recmarket.run.store import RunStore


def dist_info(
    root: Path, name: str, groups: dict[str, dict[str, str]], record: tuple[str, ...] = ()
) -> Path:
    """Write ``root/<name>-0.1.dist-info`` declaring ``groups`` ({group: {name: target}})
    and, where given, a RECORD listing ``record`` (paths relative to ``root``)."""
    info = root / f"{name.replace('-', '_')}-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n")
    if record:
        (info / "RECORD").write_text("".join(f"{path},,\n" for path in record))
    sections = [
        f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in points.items())
        for group, points in groups.items()
    ]
    (info / "entry_points.txt").write_text("\n".join(sections))
    return root


def declared_entry_points(pyproject: Path) -> dict[str, dict[str, str]]:
    """The entry points a package's pyproject.toml declares."""
    return tomllib.loads(pyproject.read_text())["project"]["entry-points"]


EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def installed_example(name: str, root: Path) -> tuple[Path, ...]:
    """The import paths of the example package ``examples/NAME`` as ``pip install`` leaves
    it: its dist-info (the entry points its pyproject.toml declares) under ``root``, and its
    source."""
    pyproject = EXAMPLES / name / "pyproject.toml"
    distribution = tomllib.loads(pyproject.read_text())["project"]["name"]
    return dist_info(root, distribution, declared_entry_points(pyproject)), EXAMPLES / name / "src"


def ran_example(name: str, tmp_path: Path, requests: int) -> tuple[tuple[Path, ...], Path]:
    """``examples/NAME`` installed as pip leaves it and its run.toml played for
    ``requests`` requests: its import paths and the run's directory."""
    paths = installed_example(name, tmp_path / "site")
    out = tmp_path / "run"
    config = EXAMPLES / name / "run.toml"
    recmarket(
        "run", "--config", str(config), "--requests", str(requests), "--out", str(out), paths=paths
    )
    return paths, out


def stored_variants(run_dir: Path) -> dict[str, dict[str, str]]:
    """The outside variants a run's manifest records, by kind and name."""
    with RunStore.read(run_dir) as store:
        return dict(json.loads(store.manifest()["variants"]))


def refused_after_each_edit(
    sources: dict[str, Path], plugins: dict[str, tuple[Any, ...]], *command: str, site: Path
) -> None:
    """Edit each plugin's source in turn and expect ``recmarket COMMAND`` to refuse, naming
    its kind and distribution; each edit is put back before the next."""
    for kind, source in sources.items():
        code, _, name, _, _, recorded = plugins[kind]
        source.write_text(code + "\n# edited\n")
        said = refused(*command, paths=(site,))
        assert f"{recorded}: {name}-plugin 0.1, its source changed" in said, kind
        source.write_text(code)  # put back: the next edit is the only change


def run_recmarket(
    *args: str, paths: tuple[Path, ...] = (), timeout: int = 300
) -> subprocess.CompletedProcess[str]:
    """``recmarket ARGS`` in a fresh process whose imports also see ``paths`` (where
    ``dist_info`` left packages)."""
    return subprocess.run(
        [sys.executable, "-m", "recmarket", *args],
        env={**os.environ, "PYTHONPATH": os.pathsep.join([*map(str, paths), *sys.path])},
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def recmarket(*args: str, paths: tuple[Path, ...] = (), timeout: int = 300) -> str:
    """``run_recmarket``'s standard output; a failure shows its error's end."""
    done = run_recmarket(*args, paths=paths, timeout=timeout)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def refused(*args: str, paths: tuple[Path, ...] = ()) -> str:
    """The one-line error of a ``recmarket ARGS`` that must exit 2, as one line however the
    console wrapped it."""
    done = run_recmarket(*args, paths=paths)
    assert done.returncode == 2, done.stderr[-2000:]
    return " ".join(done.stderr.split())


def exported_calls(run_dir: Path, paths: tuple[Path, ...]) -> list[dict[str, Any]]:
    """Every role call of a run, read by ``recmarket export --calls`` in a process that sees
    ``paths``: an offline run's calls are played again from its settings, which name the
    plugins only such a process can load."""
    target = run_dir.parent / f"{run_dir.name}-calls.csv"
    recmarket(
        "export", str(run_dir), "--calls", "--format", "csv", "--out", str(target), paths=paths
    )
    with target.open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    return [
        {**row, "input": json.loads(row["input"]), "output": json.loads(row["output"])}
        for row in rows
    ]
