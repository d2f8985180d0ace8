"""Coverage of the prediction-powered intervals where the truth is known.

Three reference backends stand in for a model, each with role draws of its own: **near**
(the offline agents with a little more credence in claims and almost no judgement noise, as
a model at temperature 0 behaves), **far** (claim-dominated ranking: a user agent that
believes every unverified claim in full and reads fit three times as noisily) and
**fake-llm** (the project's fake model answering the decision and the record update through
the whole HTTP path). Each plays every unit of two small studies ``Size.plays`` times with
role draws of its own, so both truths are known: its realised value on this market's units
(its first play) and its expected one (the mean of its plays; against it, each replicate's
pilot plays one of them, drawn afresh, with its noise replays the next two). The studies: an
accountability-shaped one (NoRep and LocalRep in the Balanced-Exaggeration market, the user
as unit) and a shared-scope one (Shared-1 at many seeds, a whole seed and domain as unit).
The surrogate (the default offline agents) plays every unit R = 4 times (the pilot's
default: the study's play and three replays whose decisions count at their chances).

A unit's outcome does not depend on which other units a pilot holds, so each replicate pilot
is drawn from those plays, as the tool draws it (benchmarks/ppi_designs.py): uniform at the
docs' share (grown through the shares ``LOOKS``, the fixed-n interval read at the last and
the anytime-valid one at every look), uniform at three units a stratum (where a first pilot
is), and neyman and active at the uniform pilot's calls; against the realised truth, and
against the expected one with the tool's noise replays. Every interval rests on
``min_units_per_stratum`` (8) pilot units a stratum, merged where fewer, as the tool's do;
a replicate with no interval (too few units even pooled) counts apart. Per row the table
gives the coverage of PPI++ and of regression adjustment (the surrogate as a covariate,
its weight unclipped), the pilot-only and anytime coverage, the widths (PPI over the pilot's
own beside what its correlation allows, and each design's width over uniform PPI++'s on the
same replicate), and which targets of issues 50 and 65 the row meets.

    python benchmarks/ppi_coverage.py            # the docs' study, printed (about 30 minutes)
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
from ppi_designs import DESIGNS, LEAST, Allocated, Design, allocated, chosen, pilot_parts

from recmarket.analysis.bootstrap import Metric, difference, level_of
from recmarket.analysis.ppi import estimate
from recmarket.analysis.ppi_units import UnitParts, unit_parts
from recmarket.analysis.sequences import anytime
from recmarket.report.pilot_data import PilotedCell, read_piloted
from recmarket.report.ppi_table import one_play, outcomes
from recmarket.run.pilot import PILOT, PilotAsked
from recmarket.run.pilot_file import PilotSettings
from recmarket.study import reproduce
from recmarket.testing.fake_llm import FakeLLM

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "llm-valid.md"
STORED = ROOT / "docs" / "evidence" / "ppi-coverage.csv"
OPEN, CLOSE = "<!-- coverage-table -->\n", "<!-- /coverage-table -->"
LOOKS = (0.1, 0.15, 0.2, 0.25)  # a pilot looked at and grown; its fixed-n interval at the last
SHARE = LOOKS[-1]  # the docs' pilot share: every design but the first pilot's spends its calls
STUDY_SEED = 7  # the pilot seed of the plays
# The replicate pilots' draws: 8, not the 7 under which the first runs of this study found
# the under-coverage that the estimator's t quantiles now correct (fresh draws judge them).
REPLICATE_SEED = 8
DRAWS = 2_000  # bootstrap draws of each estimate
REPLAYS = PilotSettings().surrogate_replays  # the surrogate's plays a unit's prediction averages
KEY_ENV = "RECMARKET_COVERAGE_FAKE_KEY"  # the fake model's key, set in this process only
ALLOCATED_BY = "target_purchase"  # the outcome the tool's allocations read (pilot_allocation)


@dataclass(frozen=True)
class Size:
    """How large the two studies are, how often each reference plays every unit (its
    expected value is their mean) and how many replicate pilots are drawn."""

    requests: int  # per domain and seed, user study
    users_per_profile: int
    seeds: int
    shared_requests: int
    shared_seeds: int
    replicates: int
    plays: int


FULL = Size(300, 5, 2, 60, 20, 400, 8)
QUICK = Size(48, 2, 2, 24, 6, 12, 3)


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


PAIR = ("no-rep", "local-rep")
ESTIMANDS = (
    Estimand("NoRep Exaggeration Top-1 share", "user", ("no-rep",), "exaggeration_top1"),
    Estimand("NoRep target purchase", "user", ("no-rep",), "target_purchase"),
    Estimand("LocalRep - NoRep, Exaggeration Top-1", "user", PAIR, "exaggeration_top1"),
    Estimand("LocalRep - NoRep, target purchase", "user", PAIR, "target_purchase"),
    # sparse: a few users buy off target in one cell and not the other (issue 65)
    Estimand("LocalRep - NoRep, off-target purchase", "user", PAIR, "off_target_purchase"),
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


def reference_pilot(text: str, plays: int) -> str:
    """A reference as a pilot of every unit, replayed on all of them (its noise replays)."""
    return (
        f'[pilot]\nestimand = "expected"\nnoise_replays = {plays - 1}\nnoise_share = 1.0\n' + text
    )


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
    """One estimand under one reference: every unit's parts by both backends, the
    reference's plays of them all, both truths, and the study's allocations."""

    reference: str
    estimand: Estimand
    unit: str
    full: UnitParts  # the surrogate's prediction and the reference's first play
    single: UnitParts  # the surrogate's prediction from one replay, not the mean of R
    as_drawn: UnitParts  # the mean of R with every decision as drawn, not at its chances
    plays: dict  # per stratum the reference's plays, (units, plays, arms, parts)
    metric: Metric
    truths: dict[str, float]  # realised (its first play), expected (the mean of its plays)
    allocation: Allocated | None  # None where a whole seed and domain is the unit

    @property
    def whole_units(self) -> bool:
        return self.allocation is None


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
            pilot.write_text(reference_pilot(text, size.plays))
            for study, spec in paths.items():
                target = out / reference / study  # a directory holds one pilot
                if reference == "fake-llm":  # its port is new each run: another backend to
                    (target / PILOT).unlink(missing_ok=True)  # the tool, with no look to keep
                asked = PilotAsked(pilot, 1.0, STUDY_SEED)
                reproduce([str(spec)], target, workers=workers, pilot=asked)
                cells, notes = read_piloted([target])
                if notes:
                    raise SystemExit("; ".join(notes))
                found += populations(reference, study, {c.label: c for c in cells})
    return found


def populations(reference: str, study: str, cells: dict[str, PilotedCell]) -> list[Population]:
    studied = [e for e in ESTIMANDS if e.study == study]
    arms = [cells[label] for label in dict.fromkeys(c for e in studied for c in e.cells)]
    allocation = None if arms[0].unit == "domain" else allocated(_rates(arms), SHARE)
    made = []
    for e in studied:
        arms = [cells[label] for label in e.cells]
        metric = outcomes(arms[0].config)[e.outcome]
        replays = [[cell.plays[i] for cell in arms] for i in range(len(arms[0].plays))]
        pilot = [c.pilot for c in arms]
        noise = [[c.noise[r] for c in arms] for r in range(len(arms[0].noise))]
        played = unit_parts(replays, pilot, metric.parts, arms[0].unit, noise=noise)
        full = UnitParts(played.predicted, played.observed)
        plays = played.noise or {}
        if any(not np.array_equal(p[:, 0], full.observed[s]) for s, p in plays.items()):
            raise SystemExit(f"{reference} {e.name}: the plays' first is not the pilot's own")
        single = unit_parts(one_play(replays), pilot, metric.parts, arms[0].unit)
        as_drawn = unit_parts(replays, pilot, metric.parts, arms[0].unit, exact_choices=False)
        mean = UnitParts(full.predicted, {s: p.mean(axis=1) for s, p in plays.items()})
        truths = {
            "realised": estimate(full, metric, _statistic(e), draws=10).pilot[0],
            "expected": estimate(mean, metric, _statistic(e), draws=10).pilot[0],
        }
        made.append(
            Population(
                reference,
                e,
                arms[0].unit,
                full,
                single,
                as_drawn,
                plays,
                metric,
                truths,
                allocation,
            )
        )
    return made


def _rates(arms: list[PilotedCell]) -> dict:
    """Per stratum each unit's target-purchase rate in each surrogate play and cell, (units,
    plays, cells), in the populations' unit order: what the tool's allocations read."""
    metric = outcomes(arms[0].config)[ALLOCATED_BY]
    per_play = []
    for i in range(len(arms[0].plays)):
        parts = unit_parts(
            [[c.plays[i] for c in arms]],
            [c.pilot for c in arms],
            metric.parts,
            arms[0].unit,
            exact_choices=False,  # as the stores hold them: what the tool's allocations read
        )
        per_play.append(parts.predicted)  # (units, cells, [sum, episodes])
    return {
        s: np.stack([p[s][..., 0] / np.maximum(p[s][..., 1], 1) for p in per_play], axis=1)
        for s in per_play[0]
    }


def _statistic(e: Estimand):
    return level_of if e.kind == "level" else difference


def orders(pop: Population, gen: np.random.Generator) -> dict:
    """The replicate's random order of each stratum's units, or where a whole (seed,
    domain) is the unit, of each domain's seeds."""
    if pop.whole_units:
        strata = sorted(pop.full.predicted, key=str)
        domains = sorted({d for _, d in strata})
        return {
            d: [strata[i] for i in gen.permutation(len(strata)) if strata[i][1] == d]
            for d in domains
        }
    return {s: gen.permutation(len(f)) for s, f in sorted(pop.full.predicted.items(), key=str)}


def _grown(pop: Population, order: dict, replicate: int) -> tuple[dict[str, float], object]:
    """The uniform pilot grown through LOOKS against the realised truth: fixed-n coverage
    at the last look, anytime coverage at every look, what R replays and their chances
    bought, and the paired contrast's width against its unpaired levels."""
    statistic, truth = _statistic(pop.estimand), pop.truths["realised"]
    design = DESIGNS[0]
    inside_always, first_n, e = True, None, None
    for share in LOOKS:
        picked, _ = chosen(design, order, {}, pop.allocation, share)
        e = estimate(
            pilot_parts(pop.full, picked, pop.whole_units),
            pop.metric,
            statistic,
            draws=DRAWS,
            seed=replicate,
            least=LEAST,
        )
        if not np.isfinite(e.ppi[1]):
            continue
        first_n = first_n or e.pilot_n
        low, high = anytime(e.ppi[0], e.unit_spread, e.pilot_n, first_n, df=e.df)
        inside_always &= low <= truth <= high
    picked, _ = chosen(design, order, {}, pop.allocation, SHARE)
    found = {"anytime_covered": float(inside_always)}
    for name, units in (("one", pop.single), ("drawn", pop.as_drawn)):
        other = estimate(
            pilot_parts(units, picked, pop.whole_units), pop.metric, statistic, draws=DRAWS
        )
        found[f"correlation_{name}"] = other.correlation
    if pop.estimand.kind == "contrast":
        parts = pilot_parts(pop.full, picked, pop.whole_units)
        levels = [
            estimate(_arm(parts, a), pop.metric, level_of, draws=DRAWS, seed=replicate, least=LEAST)
            for a in (0, 1)
        ]
        unpaired = math.hypot(*(x.pilot[2] - x.pilot[1] for x in levels))
        found["paired"] = _ratio(e.pilot[2] - e.pilot[1], unpaired)
    return found, e


def one_replicate(pop: Population, replicate: int) -> dict[str, dict[str, float]]:
    """One replicate pilot under every design the population's unit allows, all drawn from
    the same random order of its units: per design its coverage by both estimators and its
    widths, over uniform PPI++'s at the docs' share on the same replicate."""
    gen = np.random.default_rng([REPLICATE_SEED, replicate])
    order = orders(pop, gen)
    uniforms = (
        {s: gen.random(len(perm)) for s, perm in order.items()} if not pop.whole_units else {}
    )
    # against the expected truth the pilot's own play is one of the reference's, drawn
    # afresh each replicate (its noise replays the next two): a fixed first play would fix
    # its deviation from the mean of the plays across every replicate
    own = int(gen.integers(next(iter(pop.plays.values())).shape[1]))
    turned = {s: np.roll(p, -own, axis=1) for s, p in pop.plays.items()}
    drawn_play = UnitParts(pop.full.predicted, {s: p[:, 0] for s, p in turned.items()})
    statistic = _statistic(pop.estimand)
    results: dict[str, dict[str, float]] = {}
    base = float("nan")
    for design in DESIGNS:
        if pop.whole_units and design.allocation != "uniform":
            continue  # a domain's seeds are one stratum of equal shares: as uniform
        picked, chances = chosen(design, order, uniforms, pop.allocation, SHARE)
        if design.truth == "expected":
            parts = pilot_parts(drawn_play, picked, pop.whole_units, turned, chances)
        else:
            parts = pilot_parts(pop.full, picked, pop.whole_units, None, chances)
        truth = pop.truths[design.truth]
        e, ra = (
            estimate(
                parts, pop.metric, statistic, draws=DRAWS, seed=replicate, least=LEAST, tuning=t
            )
            for t in ("ppi++", "regression")
        )
        width, ra_width = e.ppi[2] - e.ppi[1], ra.ppi[2] - ra.ppi[1]
        if design == DESIGNS[0]:
            base = width
        found = {
            "given": float(np.isfinite(width)),
            "covered": float(e.ppi[1] <= truth <= e.ppi[2]),
            "ra_covered": float(ra.ppi[1] <= truth <= ra.ppi[2]),
            "pilot_covered": float(e.pilot[1] <= truth <= e.pilot[2]),
            "ratio": _ratio(width, e.pilot[2] - e.pilot[1]),
            "vs_uniform": _ratio(width, base),
            "ra_vs_uniform": _ratio(ra_width, base),
            "correlation": e.correlation,
            "allowed": math.sqrt(1 - max(e.correlation, 0.0) ** 2),
            "weight": e.weight,
            "pilot_n": e.pilot_n,
            "units": parts.units,
        }
        if design.looks:
            grown, _ = _grown(pop, order, replicate)
            found |= grown
        results[design.name] = found
    return results


def _ratio(width: float, other: float) -> float:
    """A width over another; none where the other has no spread (every unit alike)."""
    return width / other if other > 0 else float("nan")


def _arm(parts: UnitParts, a: int) -> UnitParts:
    return UnitParts(
        {s: p[:, a : a + 1] for s, p in parts.predicted.items()},
        {s: o[:, a : a + 1] for s, o in parts.observed.items()},
    )


POPULATIONS: list[Population] = []  # read by forked workers


CHUNK = 25  # replicates a task: enough tasks that the cores stay busy to the end


def _replicates(task: tuple[int, int, int]) -> list[dict[str, dict[str, float]]]:
    index, first, count = task
    return [one_replicate(POPULATIONS[index], r) for r in range(first, first + count)]


def summary(pop: Population, design: Design, found: list[dict[str, float]]) -> dict[str, str]:
    """One row of the table: means over replicates, and the targets met or missed."""
    given = [f for f in found if f["given"]]

    def mean(key: str, among: list[dict[str, float]] = given) -> float:
        values = [f[key] for f in among if key in f and np.isfinite(f[key])]
        return float(np.mean(values)) if values else float("nan")

    e, n = pop.estimand, len(found)
    ratio, allowed = mean("ratio"), mean("allowed")
    shortfalls = []
    coverage, anytime_ = 100 * mean("covered"), 100 * mean("anytime_covered")
    if not 92 <= coverage <= 98:
        shortfalls.append(f"coverage {coverage - (92 if coverage < 92 else 98):+.1f} pp off 92-98")
    if design.looks and anytime_ < 95:
        shortfalls.append(f"anytime {anytime_ - 95:+.1f} pp under 95")
    widest = max((f["ratio"] for f in given if np.isfinite(f["ratio"])), default=float("nan"))
    if widest > 1.02:
        shortfalls.append(f"widest PPI {widest:.3f}x pilot")
    vs_uniform = mean("vs_uniform")
    if design.allocation != "uniform":
        if vs_uniform > 1.02:
            shortfalls.append(f"{vs_uniform:.3f}x uniform's width")
        if e.kind == "level" and vs_uniform > 0.85:
            shortfalls.append(f"width {vs_uniform - 0.85:+.3f} over 0.85x uniform")
    near_level = pop.reference == "near" and not pop.whole_units and e.kind == "level"
    if design.looks and near_level and ratio > 0.85:
        shortfalls.append(f"ratio {ratio - 0.85:+.3f} over 0.85")
    no_interval = n - len(given)
    return {
        "estimand": e.name,
        "unit": pop.unit,
        "reference": pop.reference,
        "pilot": f"{design.allocation}, {design.size}",
        "truth": design.truth,
        "replicates": f"{n}" + (f" ({no_interval} no interval)" if no_interval else ""),
        "pilot units / units": f"{mean('pilot_n', found):.0f} / {mean('units', found):.0f}",
        "value": f"{pop.truths[design.truth]:+.4f}",
        "coverage PPI++": f"{coverage:.1f}%",
        "coverage regression": f"{100 * mean('ra_covered'):.1f}%",
        "pilot-only coverage": f"{100 * mean('pilot_covered'):.1f}%",
        "anytime coverage (4 looks)": f"{anytime_:.1f}%" if design.looks else "-",
        "PPI / pilot width": f"{ratio:.3f} (max {widest:.3f})",
        "allowed sqrt(1-rho^2)": f"{allowed:.3f}",
        "width / uniform's (PPI++, regression)": f"{vs_uniform:.3f}, {mean('ra_vs_uniform'):.3f}",
        f"correlation (R = {REPLAYS} / 1 / drawn)": (
            f"{mean('correlation'):.3f} / {mean('correlation_one'):.3f} / "
            f"{mean('correlation_drawn'):.3f}"
            if design.looks
            else f"{mean('correlation'):.3f}"
        ),
        "weight": f"{mean('weight'):.2f}",
        "paired / unpaired width": f"{mean('paired'):.2f}"
        if design.looks and e.kind == "contrast"
        else "-",
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
    tasks = [
        (i, first, min(CHUNK, size.replicates - first))
        for i in range(len(POPULATIONS))
        for first in range(0, size.replicates, CHUNK)
    ]
    with multiprocessing.get_context("fork").Pool(args.workers) as pool:
        done = pool.map(_replicates, tasks)
    results: list[list[dict[str, dict[str, float]]]] = [[] for _ in POPULATIONS]
    for (i, _, _), found in zip(tasks, done, strict=True):
        results[i] += found
    rows = [
        summary(pop, design, [r[design.name] for r in found])
        for pop, found in zip(POPULATIONS, results, strict=True)
        for design in DESIGNS
        if design.name in found[0]
    ]
    seconds = time.perf_counter() - start
    command = "python benchmarks/ppi_coverage.py" + (" --quick" if args.quick else "")
    provenance = (
        f"_Made by `{command} --write` at commit {_commit()}: {size.replicates} replicate "
        f"pilots per row (draws seeded [{REPLICATE_SEED}, replicate]), each reference "
        f"playing every unit {size.plays} times, looks at shares "
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
