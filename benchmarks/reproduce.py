"""A reproduce plan with the offline backend, report included (the whole built-in plan, or
the experiments named): where the time goes, its serial share, and the speed-up that share
predicts for more workers (Amdahl).

    python benchmarks/reproduce.py [EXPERIMENT ...] [--scale 1.0] [--seeds 3] [--workers 1 2]
                                   [--cold]

    python benchmarks/reproduce.py design-frontier     # the design sweep of issue 28

For each worker count the plan runs into a fresh directory (with --cold, a fresh embedding
cache too) and the phases are printed: loading the embedder and the domains (paid once per
worker), embedding, building markets, episode work (summed over the workers), and the
driver's own planning, store writes and the report. Each count runs in a fresh process,
so nothing one run loaded serves the next. From the run with the fewest workers:

    T(w) = S + r + Q / w

with S the serial part (planning and store writes: the driver does them alone; its writes
overlap the workers in fact, so S is an upper bound), r what every worker repeats (loading
the embedder and the domains) and Q the rest of the workers' time. The report draws its
figures in as many processes as there are workers, so it is counted both ways: serial
(the upper bound of the serial share) and divided among its processes (the lower bound).
Scheduling idle is the worker time a run with w workers left unused: w x (its wall time
less planning and report) less the workers' busy time.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from recmarket.experiments.spec import DEFAULT_SEEDS
from recmarket.report.build import build_report
from recmarket.run.phases import Phases
from recmarket.run.study_plan import plan
from recmarket.study import reproduce

DRIVER = ("planning", "store writes", "driver waiting")
REPEATED = ("loading the embedder", "domain data")
PREDICTED_FOR = (4, 8, 16)


def timed_run(
    names: list[str], workers: int, scale: float, seeds: int, cold: bool
) -> tuple[float, float, Phases]:
    """(seconds of reproduce, seconds of the report, phases) of one fresh run."""
    with tempfile.TemporaryDirectory() as tmp:
        if cold:
            os.environ["RECMARKET_CACHE"] = str(Path(tmp) / "cache")
        phases = Phases()
        start = time.perf_counter()
        reproduce(
            names, Path(tmp) / "out", scale=scale, workers=workers, seeds=seeds, phases=phases
        )
        ran = time.perf_counter() - start
        start = time.perf_counter()
        build_report([Path(tmp) / "out"], Path(tmp) / "report", workers)
        return ran, time.perf_counter() - start, phases


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("experiments", nargs="*", help="built-in names (default: all)")
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--seeds", type=int, default=DEFAULT_SEEDS)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--cold", action="store_true", help="a fresh embedding cache per run")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        cells, configs = plan(args.experiments, Path(tmp), args.scale, seeds=args.seeds)
    episodes = sum(c.total_episodes for c in configs.values())
    print(
        f"{', '.join(args.experiments) or 'every built-in experiment'}: --scale {args.scale}, "
        f"{args.seeds} seeds: {len(cells)} cells ({len(configs)} unique), "
        f"{episodes:,} episodes; {os.cpu_count()} cores"
    )
    walls: dict[int, float] = {}
    model: Model | None = None  # of the run with the fewest workers
    for workers in args.workers:
        spawn = multiprocessing.get_context("spawn")  # its process may start workers
        with ProcessPoolExecutor(1, mp_context=spawn) as fresh:
            job = fresh.submit(
                timed_run, args.experiments, workers, args.scale, args.seeds, args.cold
            )
            ran, reported, phases = job.result()
        walls[workers] = ran + reported
        seconds = phases.seconds
        busy = sum(s for p, s in seconds.items() if p not in DRIVER)
        repeated = sum(seconds.get(p, 0) for p in REPEATED)
        driver = seconds.get("planning", 0) + seconds.get("store writes", 0)
        serial = driver + reported
        idle = workers * (ran - seconds.get("planning", 0)) - busy
        print(
            f"\n{workers} workers: {ran + reported:.1f} s wall ({ran:.1f} s running, "
            f"{reported:.1f} s report), {episodes / ran:,.0f} episodes/s"
        )
        for phase, spent in sorted(seconds.items(), key=lambda x: -x[1]):
            print(f"  {phase:<22} {spent:8.1f} s")
        print(f"  {'report':<22} {reported:8.1f} s")
        print(
            f"  serial share {serial / walls[workers]:.1%} (planning, store writes, report: "
            f"{serial:.1f} s); scheduling idle {max(idle, 0):.1f} worker-seconds"
        )
        if model is None or workers < model.workers:
            model = Model(workers, driver, reported, repeated / workers, busy - repeated)
        predict(model, walls)


@dataclass(frozen=True)
class Model:
    """Amdahl's terms, read off one run: its workers, the driver's serial seconds, the
    report's wall seconds (in as many processes), r and Q."""

    workers: int
    driver: float
    report: float
    repeated: float
    work: float

    def wall(self, workers: int, report_serial: bool) -> float:
        if report_serial:
            return self.driver + self.report + self.repeated + self.work / workers
        report = self.report * self.workers  # its process-seconds, divided among workers
        return self.driver + self.repeated + (self.work + report) / workers


def predict(model: Model, walls: dict[int, float]) -> None:
    """T(w) = S + r + Q / w, from the run with the fewest workers so far: with the report
    serial, and divided among its processes."""
    one = model.wall(1, report_serial=True)
    print(
        f"Amdahl from the {model.workers}-worker run: S {model.driver:.1f} s serial (planning, "
        f"store writes) and a {model.report:.1f} s report, r {model.repeated:.1f} s repeated "
        f"per worker, Q {model.work:.1f} s of divisible work; serial share of one worker's "
        f"{one:.1f} s: {(model.driver + model.report) / one:.1%} with the report serial, "
        f"{model.driver / one:.1%} with it divided among its processes"
    )
    for workers in sorted({*walls, *PREDICTED_FOR}):
        low, high = (model.wall(workers, serial) for serial in (False, True))
        measured = f"; measured {walls[workers]:.1f} s" if workers in walls else ""
        print(
            f"  {workers:>2} workers: predicted {low:.1f}-{high:.1f} s, "
            f"{one / high:.2f}-{one / low:.2f}x{measured}"
        )


if __name__ == "__main__":
    main()
