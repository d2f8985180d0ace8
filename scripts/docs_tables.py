"""Write the results tables of README.md and docs/ from a stored reproduce run.

A results table is never typed: it sits between two markers,

    <!-- table NAME scale=S -->
    ...
    <!-- /table NAME -->

and this script writes it from the report tables of a run made at ``--scale S`` (the
report is rebuilt from the run's stores first, so the numbers are the code's of today),
followed by a line naming the command, the seeds and the commit that made the run. A table
without a scale is made from the code alone (the offline model's parameters) and written
whatever run is given.

    python scripts/docs_tables.py RUN_DIR            # write every table of the run's scale
    python scripts/docs_tables.py RUN_DIR --check    # write nothing; exit 1 on a difference

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
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = (ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")))
MARKER = re.compile(
    r"(?P<open><!-- table (?P<name>[\w-]+)(?: scale=(?P<scale>[\d.]+))? -->\n)"
    r"(?P<body>.*?)"
    r"(?P<close><!-- /table (?P=name) -->)",
    re.S,
)
Row = dict[str, str]


def _interval(row: Row, estimate: str = "ours", low: str = "low", high: str = "high") -> str:
    if not row[estimate]:
        return ""
    if not row[low]:
        return row[estimate]
    return f"{row[estimate]} [{row[low]}, {row[high]}]"


def _markdown(header: list[str], lines: list[list[str]]) -> str:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(cell.replace("|", "/") for cell in line) + " |" for line in lines]
    return "\n".join(out) + "\n"


def paper_comparison(rows: list[Row]) -> str:
    """Every paper number beside ours: the verdict, how the interval was made, and for a
    LocalRep contrast where its chain breaks."""
    header = [
        "section",
        "what",
        "kind",
        "paper",
        "ours, 95% interval",
        "size",
        "verdict",
        "interval",
        "chain",
    ]
    lines = [
        [
            r["section"],
            r["what"],
            r["kind"],
            r["paper"] + (f" {r['paper_interval']}" if r["paper_interval"] else ""),
            _interval(r),
            r["size"],
            r["verdict"],
            r["interval_method"],
            r["chain"],
        ]
        for r in rows
        if r["verdict"] not in ("not run", "no counterpart")
    ]
    return _markdown(header, lines)


def paper_summary(rows: list[Row]) -> str:
    """The verdicts counted by what produces each contrast, as the report's summary line."""
    from recmarket.report.paper import summary

    return f"`{summary(rows)}`\n"


CHAIN = (
    ("exaggeration_top1", "Exaggeration Top-1"),
    ("target_shortlisted", "target shortlisted"),
    ("target_top1", "target Top-1"),
    ("target_top1_via_exaggeration", "target Top-1, Exaggeration's targets"),
    ("target_purchased", "target purchased"),
    ("moved_to_target", "moved Top-1s now the target %"),
    ("moved_from_target", "moved Top-1s once the target %"),
)


def _chain(rows: list[Row], keep: Callable[[str], bool]) -> str:
    header = ["contrast", *(words for _, words in CHAIN), "chain"]
    lines = [
        [
            r["contrast"],
            *(_interval(r, c, f"{c}_low", f"{c}_high") for c, _ in CHAIN),
            r["chain"],
        ]
        for r in rows
        if keep(r["contrast"])
    ]
    return _markdown(header, lines)


STEPS = "offline-model-steps:"


# The experiments whose LocalRep contrasts the docs list (the design frontier's and the
# attacks' are in the report's table, beside their own tables).
PAPER_CHAINS = ("accountability:", "catalog-assignment:", "model-sensitivity:", "reputation-scope:")


def accountability_chain(rows: list[Row]) -> str:
    """Every LocalRep contrast of the paper's accountability experiments, link by link
    (points; the moved Top-1s in percent)."""
    return _chain(rows, lambda contrast: contrast.startswith(PAPER_CHAINS))


def model_steps(rows: list[Row]) -> str:
    """The equal market's LocalRep contrast under the model before issue 45, with each of
    its three changes alone, and with all three."""
    return _chain(rows, lambda contrast: contrast.startswith(STEPS))


def offline_parameters() -> str:
    """Every parameter of the offline model with its default, meaning and source."""
    from recmarket.agents.rules.params import parameter_table

    lines = [
        [f"`{name}`", value, meaning, source] for name, value, meaning, source in parameter_table()
    ]
    return _markdown(["parameter", "default", "meaning", "source"], lines)


def _num(value: str, digits: int, scale: float = 1.0, sign: bool = False) -> str:
    return f"{float(value) * scale:{'+' if sign else ''}.{digits}f}"


def _span(row: Row, column: str, digits: int, scale: float = 1.0, sign: bool = False) -> str:
    """A report table's estimate with its 95% interval, rounded for reading."""
    ends = (row[column], row[f"{column}_low"], row[f"{column}_high"])
    a, b, c = (_num(v, digits, scale, sign) for v in ends)
    return f"{a} [{b}, {c}]"


def label_counterfactual(rows: list[Row]) -> str:
    """Exaggeration's label mix and its Top-1 contrast at each Low threshold."""
    header = [
        "`update.low_gap`",
        "Exaggeration's records: High / Mixed / Low %",
        "Exaggeration Top-1 share, LocalRep minus NoRep (pp)",
    ]
    lines = [
        [
            r["low_gap"],
            " / ".join(f"{float(r[f'exaggeration_{x}']):.1f}" for x in ("high", "mixed", "low")),
            f"{float(r['exaggeration_top1_change']):+.1f} [{float(r['low']):+.1f}, "
            f"{float(r['high']):+.1f}]",
        ]
        for r in rows
    ]
    return _markdown(header, lines)


FRONTIER = [
    ("target_purchase", "target purchase %", 1, 100.0),
    ("hhi_top1", "HHI Top-1", 3, 1.0),
    ("exaggeration_top1", "Exaggeration Top-1 %", 1, 100.0),
]
FRONTIER_FULL = [
    *FRONTIER[:1],
    ("regret", "regret", 3, 1.0),
    *FRONTIER[1:2],
    ("hhi_purchase", "HHI purchase", 3, 1.0),
    ("exposure_gini", "exposure Gini", 3, 1.0),
    *FRONTIER[2:],
]


def _frontier(rows: list[Row], columns: list[tuple[str, str, int, float]], method: bool) -> str:
    header = ["N", "K", "accountability", "order", *(w for _, w, _, _ in columns)]
    lines = [
        [
            r["n_platforms"],
            r["shortlist_k"],
            r["accountability"],
            r["candidate_order"],
            *(_span(r, c, d, x) for c, _, d, x in columns),
            *([r["interval"]] if method else []),
        ]
        for r in rows
        if r["dominated"] == "False"
    ]
    return _markdown(header + (["interval"] if method else []), lines)


def frontier(rows: list[Row]) -> str:
    """The designs no other serves better at lower concentration."""
    return _frontier(rows, FRONTIER, method=False)


def frontier_full(rows: list[Row]) -> str:
    """The same designs with every measure and how each interval was made."""
    return _frontier(rows, FRONTIER_FULL, method=True)


def attacks_grid(rows: list[Row]) -> str:
    """Each attacker's gain in Top-1 share under each defence (points)."""
    defences = sorted(dict.fromkeys(r["defence"] for r in rows), key=lambda d: "no-rep" not in d)
    attacks = list(dict.fromkeys(r["attack"] for r in rows))
    gain = {(r["attack"], r["defence"]): _span(r, "gain_top1", 1, 100.0, True) for r in rows}
    lines = [[a, *(gain.get((a, d), "") for d in defences)] for a in attacks]
    return _markdown(["attack", *defences], lines)


ATTACK_COLUMNS: tuple[tuple[str, Callable[[Row], str]], ...] = (
    ("attack", lambda r: r["attack"]),
    ("defence", lambda r: r["defence"]),
    ("gain in Top-1 share (pp)", lambda r: _span(r, "gain_top1", 1, 100.0, True)),
    ("gain in purchase share (pp)", lambda r: _span(r, "gain_purchase", 1, 100.0, True)),
    (
        "change in target purchase (pp)",
        lambda r: _span(r, "change_target_purchase", 1, 100.0, True),
    ),
    ("change in regret", lambda r: _span(r, "change_regret", 4, sign=True)),
    ("names shown", lambda r: f"{float(r['identities']):.1f}"),
    ("switched", lambda r: f"{float(r['switched_share']):.2f}"),
    ("forged after", lambda r: f"{float(r['forged_share']):.2f}"),
    ("interval", lambda r: r["interval"]),
)


def attacks_table(rows: list[Row]) -> str:
    """Every attack under every defence, with what the attacker did."""
    lines = [[cell(r) for _, cell in ATTACK_COLUMNS] for r in rows]
    return _markdown([name for name, _ in ATTACK_COLUMNS], lines)


def oracle_summary(rows: list[Row]) -> str:
    """How the paired oracle-minus-mechanism contrasts in target purchase come out."""
    counts: dict[str, int] = {}
    for r in rows:
        counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
    lines = [[verdict, str(n)] for verdict, n in sorted(counts.items(), key=lambda x: -x[1])]
    return _markdown(["oracle minus mechanism, target purchase (paired 95%)", "pairs"], lines)


def long_histories(rows: list[Row]) -> str:
    """LocalRep minus NoRep over long histories (accountability-long)."""
    header = [
        "memory",
        "Exaggeration Top-1 share (pp)",
        "target Top-1 (pp)",
        "target purchase (pp)",
        "chain",
    ]
    lines = [
        [
            r["contrast"].split(": ", 1)[1],
            *(
                _interval(r, c, f"{c}_low", f"{c}_high")
                for c in ("exaggeration_top1", "target_top1", "target_purchased")
            ),
            r["chain"],
        ]
        for r in rows
        if r["contrast"].startswith("accountability-long:")
    ]
    return _markdown(header, lines)


FIRST_RUN_ROWS = (
    "stage",
    "target present",
    "target shortlisted",
    "target top-1",
    "target purchased",
    "top-1 share: exaggeration",
)


def first_run() -> str:
    """The README's first command's funnel, as it prints it (the rows the README keeps)."""
    import os
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory() as out:
        printed = subprocess.run(
            ["recmarket", "run", "--requests", "120", "--out", str(Path(out) / "first")],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "COLUMNS": "120", "NO_COLOR": "1"},
        ).stdout.splitlines()
    box = [line for line in printed if line[:1] in "┏┡└"]
    rows = [
        line
        for line in printed
        if line[:1] in "┃│" and re.split("[┃│]", line)[1].strip() in FIRST_RUN_ROWS
    ]
    kept = [box[0], rows[0], box[1], *rows[1:], box[-1]]
    return "```text\n" + "\n".join(kept) + "\n```\n"


# NAME -> how a table made from the code alone is written
FROM_CODE: dict[str, Callable[[], str]] = {
    "offline-parameters": offline_parameters,
    "first-run": first_run,
}
# NAME -> (the report table it reads, how it is written)
TABLES: dict[str, tuple[str, Callable[[list[Row]], str]]] = {
    "paper-comparison": ("paper_comparison", paper_comparison),
    "paper-summary": ("paper_comparison", paper_summary),
    "accountability-chain": ("accountability_chain", accountability_chain),
    "model-steps": ("accountability_chain", model_steps),
    "long-histories": ("accountability_chain", long_histories),
    "label-counterfactual": ("fig07_label_counterfactual", label_counterfactual),
    "frontier": ("frontier", frontier),
    "frontier-full": ("frontier", frontier_full),
    "attacks-grid": ("attacks", attacks_grid),
    "attacks": ("attacks", attacks_table),
    "oracle-summary": ("oracle_contrasts", oracle_summary),
}


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
        cell, _, seed = entry["cell"].rpartition("/seed=")
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
    from recmarket.experiments.spec import builtin_names

    builtin = set(builtin_names())
    ran = sorted({entry["experiment"] for entry in plan})
    named = [name for name in ran if name in builtin]
    files = [f"docs/specs/{name}.toml" for name in ran if name not in builtin]
    first = "" if set(named) == builtin else " " + " ".join(named)
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


def rendered(run: Path) -> tuple[float, dict[str, str]]:
    """The run's scale, and each table's body as this code writes it from the run."""
    scale, line = provenance(run)
    tables = run / "report" / "tables"
    bodies = {}
    for name, (stem, write) in TABLES.items():
        path = tables / f"{stem}.csv"
        if path.is_file():
            with path.open(newline="") as fh:
                bodies[name] = write(list(csv.DictReader(fh))) + "\n" + line
    return scale, bodies


def _table(body: str) -> str:
    """A table's body without its provenance line (another commit makes the same table)."""
    return body.split("\n_Made by ")[0]


def update(run: Path | None, *, check: bool) -> list[str]:
    """Write (or, with ``check``, compare) every table of the run's scale; the tables that
    differ (their provenance lines aside), as 'FILE: NAME' lines."""
    scale, bodies = rendered(run) if run is not None else (None, {})
    differ: list[str] = []
    for doc in DOCS:
        text = doc.read_text()

        def replace(match: re.Match[str], doc: Path = doc) -> str:
            name = match["name"]
            if match["scale"] is None:
                if name not in FROM_CODE:
                    raise SystemExit(
                        f"{doc.name}: table {name!r} without a scale is not made from the code"
                    )
                made = FROM_CODE[name]()
                if match["body"] != made:
                    differ.append(f"{doc.relative_to(ROOT)}: {name}")
                return match["open"] + made + match["close"]
            if float(match["scale"]) != scale:
                return match[0]
            if name not in bodies:
                raise SystemExit(f"{doc.name}: table {name!r} is not one this run makes")
            if _table(match["body"]) != _table(bodies[name]):
                differ.append(f"{doc.relative_to(ROOT)}: {name}")
            return match["open"] + bodies[name] + match["close"]

        new = MARKER.sub(replace, text)
        if new != text and not check:
            doc.write_text(new)
    return differ


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "run", type=Path, nargs="?", help="a reproduce output directory (none: code tables only)"
    )
    parser.add_argument("--check", action="store_true", help="compare only; exit 1 on a change")
    parser.add_argument(
        "--keep-report", action="store_true", help="use the run's report as it is, not rebuilt"
    )
    args = parser.parse_args()
    if args.run is not None and not args.keep_report:
        from recmarket.report.build import build_report

        build_report([args.run], args.run / "report", workers=os.cpu_count() or 1)
    differ = update(args.run, check=args.check)
    for line in differ:
        print(("differs: " if args.check else "written: ") + line)
    if args.check and differ:
        sys.exit(1)


if __name__ == "__main__":
    main()
