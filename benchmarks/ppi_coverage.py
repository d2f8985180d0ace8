"""Coverage of the prediction-powered intervals where the truth is known.

Three reference backends stand in for a model, each with role draws of its own: **near**
(the offline agents with a little more credence in claims and almost no judgement noise, as
a model at temperature 0 behaves), **far** (claim-dominated ranking: a user agent that
believes every unverified claim in full and reads fit three times as noisily) and
**fake-llm** (the project's fake model answering the decision and the record update through
the whole HTTP path). Each plays every unit of two small studies, so its value on this
market's units is known: an accountability-shaped one (NoRep and LocalRep in the
Balanced-Exaggeration market, the user as unit) and a shared-scope one (Shared-1 at many
seeds, a whole seed and domain as unit). The surrogate (the default offline agents) plays
every unit R = 4 times (the pilot's default: the study's play and three replays whose
decisions count at their chances), and the table gives the correlation at R and at one
replay: what the other plays bought.

A unit's outcome does not depend on which other units a pilot holds, so each replicate pilot
is drawn from those plays: a random share of each stratum's units (of each domain's seeds,
where a domain is the unit), grown through the shares ``LOOKS`` with the fixed-n interval
read at the last and the anytime-valid one at every look. Per estimand and reference the
table gives the coverage of both, the PPI-to-pilot-only width ratio beside the ratio its
measured correlation allows (sqrt(1 - rho^2)), and for contrasts the paired pilot-only
width over the unpaired combination of its two levels; the last column says which targets
of issue 50 the row meets and by how much it falls short of the others.

    python benchmarks/ppi_coverage.py            # the docs' study, printed (about 10 minutes)
    python benchmarks/ppi_coverage.py --write    # and written into docs/llm-valid.md
    python benchmarks/ppi_coverage.py --quick    # a small version (tests/benchmarks)
"""

from __future__ import annotations

import argparse
import csv
import io
import math
import multiprocessing
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from recmarket.analysis.bootstrap import Metric, difference, level_of
from recmarket.analysis.ppi import estimate
from recmarket.analysis.ppi_units import UnitParts, unit_parts
from recmarket.analysis.sequences import anytime
from recmarket.report.pilot_data import PilotedCell, read_piloted
from recmarket.report.ppi_table import one_play, outcomes
from recmarket.run.pilot import PilotAsked
from recmarket.run.pilot_file import PilotSettings
from recmarket.run.pilot_units import pilot_size
from recmarket.study import reproduce
from recmarket.testing.fake_llm import FakeLLM

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "llm-valid.md"
STORED = ROOT / "docs" / "evidence" / "ppi-coverage.csv"
OPEN, CLOSE = "<!-- coverage-table -->\n", "<!-- /coverage-table -->"
LOOKS = (0.1, 0.15, 0.2, 0.25)  # a pilot looked at and grown; its fixed-n interval at the last
STUDY_SEED = 7  # the pilot seed of the plays
# The replicate pilots' draws: 8, not the 7 under which the first runs of this study found
# the under-coverage that the estimator's t quantiles now correct (fresh draws judge them).
REPLICATE_SEED = 8
DRAWS = 2_000  # bootstrap draws of each estimate
REPLAYS = PilotSettings().surrogate_replays  # the surrogate's plays a unit's prediction averages
KEY_ENV = "RECMARKET_COVERAGE_FAKE_KEY"  # the fake model's key, set in this process only


@dataclass(frozen=True)
class Size:
    """How large the two studies are and how many replicate pilots are drawn."""

    requests: int  # per domain and seed, user study
    users_per_profile: int
    seeds: int
    shared_requests: int
    shared_seeds: int
    replicates: int


FULL = Size(300, 5, 2, 60, 20, 400)
QUICK = Size(48, 2, 2, 24, 6, 12)


@dataclass(frozen=True)
class Estimand:
    """One estimand: the study, its cells (one for a level, earlier and later for a
    contrast, later minus earlier) and the measure."""

    name: str
    study: str
    cells: tuple[str, ...]
    outcome: str

    @property
    def kind(self) -> str:
        return "level" if len(self.cells) == 1 else "contrast"


ESTIMANDS = (
    Estimand("NoRep Exaggeration Top-1 share", "user", ("no-rep",), "exaggeration_top1"),
    Estimand("NoRep target purchase", "user", ("no-rep",), "target_purchase"),
    Estimand(
        "LocalRep - NoRep, Exaggeration Top-1", "user", ("no-rep", "local-rep"), "exaggeration_top1"
    ),
    Estimand(
        "LocalRep - NoRep, target purchase", "user", ("no-rep", "local-rep"), "target_purchase"
    ),
    Estimand("Shared-1 Exaggeration Top-1 share", "shared", ("shared-1",), "exaggeration_top1"),
)

NEAR = """
[agents.ranker]
credence = 0.6
fit_noise = 0.02
"""
FAR = """
[agents.ranker]
credence = 1.0
fit_noise = 0.3
"""


def fake(url: str) -> str:
    """The fake model in the decision and the record update, the offline agents elsewhere."""
    return f"""
[llm.models.fake]
name = "fake-model"
base_url = "{url}"
api_key_env = "{KEY_ENV}"
[llm.roles]
decide = "fake"
update = "fake"
"""


def specs(size: Size, folder: Path) -> dict[str, Path]:
    """The two studies' spec files."""
    user = f"""
name = "coverage-user"
description = "NoRep and LocalRep in the Balanced-Exaggeration market, the user as unit"
requests = {size.requests}
seeds = {list(range(42, 42 + size.seeds))}
[base]
market = {{ composition = "balanced-exaggeration" }}
episodes = {{ users_per_profile = {size.users_per_profile} }}
[[cells]]
name = "no-rep"
settings = {{ condition = "no-rep" }}
[[cells]]
name = "local-rep"
settings = {{ condition = "local-rep" }}
"""
    shared = f"""
name = "coverage-shared"
description = "one memory shared by a domain's users, a whole seed and domain as unit"
requests = {size.shared_requests}
seeds = {list(range(42, 42 + size.shared_seeds))}
[[cells]]
name = "shared-1"
settings = {{ condition = "local-rep", reputation_scope = "shared" }}
"""
    folder.mkdir(parents=True, exist_ok=True)
    paths = {"user": folder / "user.toml", "shared": folder / "shared.toml"}
    for name, text in (("user", user), ("shared", shared)):
        paths[name].write_text(text)
    return paths


@dataclass(frozen=True)
class Population:
    """One estimand under one reference: every unit's parts by both backends, and the
    reference's value on them all (the truth)."""

    reference: str
    estimand: Estimand
    unit: str
    full: UnitParts
    single: UnitParts  # the surrogate's prediction from one replay, not the mean of R
    as_drawn: UnitParts  # the mean of R with every decision as drawn, not at its chances
    metric: Metric
    truth: float


def play(size: Size, out: Path, workers: int) -> list[Population]:
    """Every unit played by the surrogate and by each reference; their populations."""
    paths = specs(size, out / "specs")
    references = {"near": NEAR, "far": FAR}
    found = []
    os.environ[KEY_ENV] = "sk-coverage-fake"  # never written: the fake needs some key
    with FakeLLM() as server:
        references["fake-llm"] = fake(server.base_url)
        for reference, text in references.items():
            pilot = out / f"{reference}.toml"
            pilot.write_text(text)
            for study, spec in paths.items():
                target = out / reference / study  # a directory holds one pilot
                asked = PilotAsked(pilot, 1.0, STUDY_SEED)
                reproduce([str(spec)], target, workers=workers, pilot=asked)
                cells, notes = read_piloted([target])
                if notes:
                    raise SystemExit("; ".join(notes))
                found += populations(reference, study, {c.label: c for c in cells})
    return found


def populations(reference: str, study: str, cells: dict[str, PilotedCell]) -> list[Population]:
    made = []
    for e in (e for e in ESTIMANDS if e.study == study):
        arms = [cells[label] for label in e.cells]
        metric = outcomes(arms[0].config)[e.outcome]
        replays = [[cell.plays[i] for cell in arms] for i in range(len(arms[0].plays))]
        pilot = [c.pilot for c in arms]
        full = unit_parts(replays, pilot, metric.parts, arms[0].unit)
        single = unit_parts(one_play(replays), pilot, metric.parts, arms[0].unit)
        as_drawn = unit_parts(replays, pilot, metric.parts, arms[0].unit, exact_choices=False)
        truth = estimate(full, metric, _statistic(e), draws=10).pilot[0]
        made.append(Population(reference, e, arms[0].unit, full, single, as_drawn, metric, truth))
    return made


def _statistic(e: Estimand):
    return level_of if e.kind == "level" else difference


def drawn(pop: Population, order: dict, share: float, units: UnitParts | None = None) -> UnitParts:
    """A replicate pilot at ``share``: the first units of each stratum's random order, or
    where a whole (seed, domain) is the unit, the first seeds of each domain's order; of
    ``units`` (another prediction of the same units), or the population's own."""
    units = units or pop.full
    if pop.unit == "domain":
        chosen = {s for d, seeds in order.items() for s in seeds[: pilot_size(len(seeds), share)]}
        observed = {s: o if s in chosen else o[:0] for s, o in units.observed.items()}
        return UnitParts(units.predicted, observed)
    predicted, observed = {}, {}
    for stratum, f in units.predicted.items():
        perm = order[stratum]
        predicted[stratum] = f[perm]
        observed[stratum] = units.observed[stratum][perm[: pilot_size(len(f), share)]]
    return UnitParts(predicted, observed)


def orders(pop: Population, gen: np.random.Generator) -> dict:
    if pop.unit == "domain":
        strata = sorted(pop.full.predicted, key=str)
        domains = sorted({d for _, d in strata})
        return {
            d: [strata[i] for i in gen.permutation(len(strata)) if strata[i][1] == d]
            for d in domains
        }
    return {s: gen.permutation(len(f)) for s, f in sorted(pop.full.predicted.items(), key=str)}


def one_replicate(pop: Population, replicate: int) -> dict[str, float]:
    """One pilot grown through LOOKS: fixed-n coverage at the last look, anytime coverage at
    every look, and the widths and correlation at the last."""
    gen = np.random.default_rng([REPLICATE_SEED, replicate])
    order = orders(pop, gen)
    statistic = _statistic(pop.estimand)
    inside_always, first_n = True, None
    for share in LOOKS:
        parts = drawn(pop, order, share)
        e = estimate(parts, pop.metric, statistic, draws=DRAWS, seed=replicate)
        first_n = first_n or e.pilot_n
        low, high = anytime(e.ppi[0], e.unit_spread, e.pilot_n, first_n, df=e.df)
        inside_always &= low <= pop.truth <= high
    last = LOOKS[-1]
    one = estimate(drawn(pop, order, last, pop.single), pop.metric, statistic, draws=DRAWS)
    as_drawn = estimate(drawn(pop, order, last, pop.as_drawn), pop.metric, statistic, draws=DRAWS)
    found = {
        "covered": float(e.ppi[1] <= pop.truth <= e.ppi[2]),
        "pilot_covered": float(e.pilot[1] <= pop.truth <= e.pilot[2]),
        "anytime_covered": float(inside_always),
        "ratio": _ratio(e.ppi[2] - e.ppi[1], e.pilot[2] - e.pilot[1]),
        "correlation": e.correlation,
        "correlation_one": one.correlation,
        "correlation_drawn": as_drawn.correlation,
        "allowed": math.sqrt(1 - max(e.correlation, 0.0) ** 2),
        "weight": e.weight,
        "pilot_n": e.pilot_n,
        "units": parts.units,
    }
    if pop.estimand.kind == "contrast":
        levels = [
            estimate(_arm(parts, a), pop.metric, level_of, draws=DRAWS, seed=replicate)
            for a in (0, 1)
        ]
        unpaired = math.hypot(*(x.pilot[2] - x.pilot[1] for x in levels))
        found["paired"] = _ratio(e.pilot[2] - e.pilot[1], unpaired)
    return found


def _ratio(width: float, other: float) -> float:
    """A width over another; none where the other has no spread (every unit alike)."""
    return width / other if other > 0 else float("nan")


def _arm(parts: UnitParts, a: int) -> UnitParts:
    return UnitParts(
        {s: p[:, a : a + 1] for s, p in parts.predicted.items()},
        {s: o[:, a : a + 1] for s, o in parts.observed.items()},
    )


POPULATIONS: list[Population] = []  # read by forked workers


def _replicates(task: tuple[int, int]) -> list[dict[str, float]]:
    index, count = task
    return [one_replicate(POPULATIONS[index], r) for r in range(count)]


def summary(pop: Population, found: list[dict[str, float]]) -> dict[str, str]:
    """One row of the table: means over replicates, and the targets met or missed."""

    def mean(key: str) -> float:
        values = [f[key] for f in found if key in f and np.isfinite(f[key])]
        return float(np.mean(values)) if values else float("nan")

    e, n = pop.estimand, len(found)
    ratio, allowed = mean("ratio"), mean("allowed")
    shortfalls = []
    coverage, anytime_ = 100 * mean("covered"), 100 * mean("anytime_covered")
    if not 92 <= coverage <= 98:
        shortfalls.append(f"coverage {coverage - (92 if coverage < 92 else 98):+.1f} pp off 92-98")
    if anytime_ < 95:
        shortfalls.append(f"anytime {anytime_ - 95:+.1f} pp under 95")
    widest = max((f["ratio"] for f in found if np.isfinite(f["ratio"])), default=float("nan"))
    if widest > 1.02:
        shortfalls.append(f"widest PPI {widest:.3f}x pilot")
    if abs(ratio - allowed) > 0.03:
        shortfalls.append(f"ratio {ratio - allowed:+.3f} off allowed")
    if pop.reference == "near" and pop.unit == "user" and e.kind == "level" and ratio > 0.85:
        shortfalls.append(f"ratio {ratio - 0.85:+.3f} over 0.85")
    return {
        "estimand": e.name,
        "unit": pop.unit,
        "reference": pop.reference,
        "replicates": str(n),
        "pilot units / units": f"{int(mean('pilot_n'))} / {int(mean('units'))}",
        "truth": f"{pop.truth:+.4f}",
        "coverage 95% (fixed-n)": f"{coverage:.1f}%",
        "pilot-only coverage": f"{100 * mean('pilot_covered'):.1f}%",
        "anytime coverage (4 looks)": f"{anytime_:.1f}%",
        "PPI / pilot width": f"{ratio:.3f} (max {widest:.3f})",
        "allowed sqrt(1-rho^2)": f"{allowed:.3f}",
        f"correlation (R = {REPLAYS} / 1 / drawn)": f"{mean('correlation'):.3f} / "
        f"{mean('correlation_one'):.3f} / {mean('correlation_drawn'):.3f}",
        "weight": f"{mean('weight'):.2f}",
        "paired / unpaired width": f"{mean('paired'):.2f}" if e.kind == "contrast" else "-",
        "targets": "all met" if not shortfalls else "short: " + "; ".join(shortfalls),
    }


def render(rows: list[dict[str, str]], provenance: str) -> str:
    """The Markdown table between the doc's markers, with the line that says how it was made."""
    header = list(rows[0])
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r[h] for h in header) + " |" for r in rows]
    return "\n".join(lines) + "\n\n" + provenance + "\n"


def read_stored(path: Path = STORED) -> tuple[list[dict[str, str]], str]:
    """The stored study's rows and its provenance line."""
    text = path.read_text(encoding="utf-8")
    provenance, _, table = text.partition("\n")
    return list(csv.DictReader(io.StringIO(table))), provenance.removeprefix("# ")


def write_stored(rows: list[dict[str, str]], provenance: str, path: Path = STORED) -> None:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"# {provenance}\n{buffer.getvalue()}", encoding="utf-8")


def in_doc(doc: str, table: str) -> str:
    """``doc`` with the table between its markers replaced."""
    start, end = doc.index(OPEN) + len(OPEN), doc.index(CLOSE)
    return doc[:start] + table + doc[end:]


def _commit() -> str:
    made = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
        check=False,
    )
    return made.stdout.strip() or "unknown"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path("ppi-coverage"), help="the plays' folder")
    parser.add_argument("--quick", action="store_true", help="a small version, in seconds")
    parser.add_argument("--write", action="store_true", help="store the table in the docs")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args(argv)
    size = QUICK if args.quick else FULL
    start = time.perf_counter()
    POPULATIONS[:] = play(size, args.out, args.workers)
    played = time.perf_counter() - start
    tasks = [(i, size.replicates) for i in range(len(POPULATIONS))]
    with multiprocessing.get_context("fork").Pool(args.workers) as pool:
        results = pool.map(_replicates, tasks)
    rows = [summary(p, found) for p, found in zip(POPULATIONS, results, strict=True)]
    seconds = time.perf_counter() - start
    command = "python benchmarks/ppi_coverage.py" + (" --quick" if args.quick else "")
    provenance = (
        f"_Made by `{command} --write` at commit {_commit()}: {size.replicates} replicate "
        f"pilots per row (draws seeded [{REPLICATE_SEED}, replicate]), looks at shares "
        f"{', '.join(map(str, LOOKS))}, {DRAWS:,} bootstrap draws an estimate; studies at seeds "
        f"42-{41 + size.seeds} (user) and 42-{41 + size.shared_seeds} (shared); "
        f"{seconds / 60:.1f} minutes on {args.workers} cores ({played / 60:.1f} playing)._"
    )
    table = render(rows, provenance)
    print(table)
    if args.write:
        write_stored(rows, provenance)
        DOC.write_text(in_doc(DOC.read_text(encoding="utf-8"), table), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
