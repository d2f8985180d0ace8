"""Write the results tables of README.md and docs/ from a stored reproduce run.

A results table is never typed: it sits between two markers,

    <!-- table NAME scale=S -->
    ...
    <!-- /table NAME -->

and this script writes it from the report tables of a run made at ``--scale S`` (the
report is rebuilt from the run's stores first, so the numbers are the code's of today),
followed by a line naming the command, the seeds and the commit that made the run. A table
without a scale is made from the code alone (the offline model's parameters, the README's
first run, the data's realism against ../shared's real samples) and written whatever run is
given.

    python scripts/docs_tables.py RUN_DIR            # write every table of the run's scale
    python scripts/docs_tables.py RUN_DIR --check    # write nothing; exit 1 on a difference
    python scripts/docs_tables.py --check --quick    # the code tables that take seconds
    python scripts/docs_tables.py RUN --only-from copy-adoption   # one study's own tables

A table whose scale differs from the run's is left alone (a small run checks the tables made
at its own scale). tests/test_docs_tables.py runs ``--check`` on a small reproduce.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "data" / "amazon23"  # the real samples
DOCS = (ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")))
MARKER = re.compile(
    r"(?P<open><!-- table (?P<name>[\w-]+)(?: scale=(?P<scale>[\d.]+))?"
    r"(?: from=(?P<source>[\w-]+))? -->\n)"
    r"(?P<body>.*?)"
    r"(?P<close><!-- /table (?P=name) -->)",
    re.S,
)

from benchmark_tables import BENCHMARK_TABLES  # noqa: E402
from code_tables import FROM_CODE  # noqa: E402 (the modules beside this script)
from copy_tables import COPY_TABLES  # noqa: E402
from table_writers import TABLES  # noqa: E402

from recmarket.experiments.schedule import TWIN  # noqa: E402

WRITERS = TABLES | BENCHMARK_TABLES | COPY_TABLES


def provenance(run: Path) -> tuple[float, str]:
    """The run's scale, and the line that says how it was made: the command, the seeds and
    the commit of its stores (every store of one run is made by one commit)."""
    plan = json.loads((run / "plan.json").read_text())
    scales = {entry["scale"] for entry in plan}
    if len(scales) != 1:
        raise SystemExit(f"{run}: cells at several scales ({sorted(scales)}); give one run")
    scale = scales.pop()
    seeds: dict[str, set[str]] = {}
    for entry in plan:
        # a memoryless cell's copy on the other schedule is the same cell and seed
        cell, _, seed = entry["cell"].removesuffix(f"/{TWIN}").rpartition("/seed=")
        seeds.setdefault(f"{entry['experiment']}/{cell}", set()).add(seed)
    commits = set()
    for entry in plan:
        store = run / entry["run_dir"] / "run.sqlite"
        if store.is_file():
            commits.add(_commit(store))
    commit = ", ".join(sorted(c for c in commits if c)) or "unknown"
    line = (
        f"_Made by `python scripts/docs_tables.py RUN` from {_commands(plan, scale)} into RUN "
        f"({max(map(len, seeds.values()))} seeds a cell) at commit {commit}._\n"
    )
    return scale, line


def _commands(plan: list[dict], scale: float) -> str:
    """The reproduce commands that made a run: every built-in experiment at once (or those
    named), then each spec file of docs/specs it holds."""
    from recmarket.experiments.spec import builtin_names, every_names

    builtin, every = set(builtin_names()), set(every_names())
    ran = sorted({entry["experiment"] for entry in plan})
    named = [name for name in ran if name in builtin]
    files = [f"docs/specs/{name}.toml" for name in ran if name not in builtin]
    first = "" if set(named) == every else " " + " ".join(named)
    commands = [f"`recmarket reproduce{first} --scale {scale:g}`"] if named else []
    commands += [f"`recmarket reproduce {path} --scale {scale:g}`" for path in files]
    return " and ".join(commands)


def _commit(store: Path) -> str:
    import sqlite3

    with sqlite3.connect(f"file:{store}?mode=ro", uri=True) as db:
        found = db.execute("SELECT value FROM manifest WHERE key = 'git_commit'").fetchone()
        dirty = db.execute("SELECT value FROM manifest WHERE key = 'git_dirty'").fetchone()
    commit = (found[0] if found else "")[:7]
    return commit + (" (edited)" if dirty and dirty[0] == "true" else "")


@dataclass(frozen=True)
class Rendered:
    """A run's scale, the experiments it holds, and each table's body as this code writes it
    from the run."""

    run: Path
    scale: float
    experiments: frozenset[str]
    bodies: dict[str, str]


def rendered(run: Path) -> Rendered:
    """What this code writes from ``run``."""
    scale, line = provenance(run)
    tables = run / "report" / "tables"
    bodies = {}
    for name, (stem, write) in WRITERS.items():
        path = tables / f"{stem}.csv"
        if path.is_file():
            with path.open(newline="") as fh:
                bodies[name] = write(list(csv.DictReader(fh))) + "\n" + line
    experiments = frozenset(e["experiment"] for e in json.loads((run / "plan.json").read_text()))
    return Rendered(run, scale, experiments, bodies)


def _source(runs: list[Rendered], scale: float, source: str | None, name: str) -> Rendered | None:
    """The run a marker of ``scale`` is written from: the first of that scale that makes the
    table (for a marker that names its experiment, ``from=NAME``, the first such holding it);
    None where none does, and the table is left alone, so a run of one experiment writes its
    own tables among the markers of a whole reproduce's."""
    return next(
        (
            r
            for r in runs
            if r.scale == scale and (source is None or source in r.experiments) and name in r.bodies
        ),
        None,
    )


def _table(body: str) -> str:
    """A table's body without its provenance line (another commit makes the same table)."""
    return body.split("\n_Made by ")[0]


def update(
    runs: list[Path], *, check: bool, with_slow: bool = True, only_from: str | None = None
) -> list[str]:
    """Write (or, with ``check``, compare) every table of the runs' scales (with
    ``only_from``, only the markers that name that experiment); the tables that differ
    (their provenance lines aside), as 'FILE: NAME' lines."""
    from_runs = [rendered(run) for run in runs]
    differ: list[str] = []
    for doc in DOCS:
        text = doc.read_text()

        def replace(match: re.Match[str], doc: Path = doc) -> str:
            name = match["name"]
            if only_from is not None and match["source"] != only_from:
                return match[0]
            if match["scale"] is None:
                if name not in FROM_CODE:
                    raise SystemExit(
                        f"{doc.name}: table {name!r} without a scale is not made from the code"
                    )
                table = FROM_CODE[name]
                if (table.slow and not with_slow) or (
                    table.reads_shared and not SHARED_DATA.is_dir()
                ):
                    return match[0]
                made = table.make()
                if match["body"] != made:
                    differ.append(f"{doc.relative_to(ROOT)}: {name}")
                return match["open"] + made + match["close"]
            if name not in WRITERS:
                raise SystemExit(f"{doc.name}: table {name!r} is not one a run makes")
            found = _source(from_runs, float(match["scale"]), match["source"], name)
            if found is None:
                return match[0]
            body = found.bodies[name]
            if _table(match["body"]) != _table(body):
                differ.append(f"{doc.relative_to(ROOT)}: {name}")
            return match["open"] + body + match["close"]

        new = MARKER.sub(replace, text)
        if new != text and not check:
            doc.write_text(new)
    return differ


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "runs",
        type=Path,
        nargs="*",
        help="reproduce output directories (none: code tables only); a marker is written "
        "from the first of its scale, or of its scale holding the experiment it names",
    )
    parser.add_argument("--check", action="store_true", help="compare only; exit 1 on a change")
    parser.add_argument(
        "--keep-report", action="store_true", help="use the run's report as it is, not rebuilt"
    )
    parser.add_argument(
        "--quick", action="store_true", help="leave the code tables that take minutes alone"
    )
    parser.add_argument(
        "--only-from",
        metavar="EXPERIMENT",
        help="write only the markers that name this experiment (from=EXPERIMENT): a run of "
        "one study writes its own tables, and its report's others (the paper comparison of "
        "its cells alone) leave a whole reproduce's alone",
    )
    args = parser.parse_args()
    if not args.keep_report:
        from recmarket.report.build import build_report

        for run in args.runs:
            build_report([run], run / "report", workers=os.cpu_count() or 1)
    differ = update(args.runs, check=args.check, with_slow=not args.quick, only_from=args.only_from)
    for line in differ:
        print(("differs: " if args.check else "written: ") + line)
    if args.check and differ:
        sys.exit(1)


if __name__ == "__main__":
    main()
