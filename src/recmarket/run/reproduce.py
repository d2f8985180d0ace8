"""Running named experiments: every cell of every spec over the domains, resumably.

Cells are keyed by configuration hash, so a cell shared by two experiments runs once and a
rerun skips finished cells (and resumes an interrupted one). The plan, which experiment and
cell each run directory serves, is written to ``plan.json`` for the report.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from recmarket.agents.llm.endpoints import Endpoints
from recmarket.agents.llm.ledger import SpendAccount
from recmarket.config import RunConfig
from recmarket.experiments.spec import DEFAULT_SEEDS, every_names, load_spec
from recmarket.files import sweep_temporaries, write_text_whole
from recmarket.locks import BRIEF_WAIT, WriterLock
from recmarket.run.collector import spaced_collections
from recmarket.run.driver import run_cells
from recmarket.run.executor import LocalExecutor, ProcessExecutor
from recmarket.run.phases import Phases
from recmarket.run.runner import play_cell
from recmarket.run.store import STORE_NAME
from recmarket.run.threads import pinned_native_threads
from recmarket.tasks import gather_or_cancel

PLAN = "plan.json"
SPEND = "llm-spend.sqlite"  # the one LLM spend account every cell of the directory shares


@dataclass(frozen=True)
class PlannedCell:
    """One cell of a reproduce plan: its experiment, name, run directory, settings digest,
    figure and scale."""

    experiment: str
    cell: str
    run_dir: str  # relative to the reproduce directory, so the directory can move
    digest: str
    figure: str = ""  # the spec's figure (plans written before it was stored have none)
    scale: float | None = None  # --scale it ran at (None: a plan written before it was stored)


class PlanError(ValueError):
    """plan.json is missing or malformed; the message names the file."""


def read_plan(out: Path) -> list[PlannedCell]:
    """The cells a reproduce directory holds. Run directories are read relative to ``out``
    (a plan written with absolute paths by an older version is read by their last two
    parts, ``cells/NAME``), so a copied or moved directory reads only its own stores."""
    path = out / PLAN
    if not path.is_file():
        raise PlanError(f"{out}: no {PLAN} (make it with recmarket reproduce)")
    try:
        entries = json.loads(path.read_text(encoding="utf-8"))
        cells = [PlannedCell(**entry) for entry in entries]
    except (ValueError, TypeError) as exc:
        raise PlanError(f"{path}: not a reproduce plan ({exc})") from None
    return [replace(c, run_dir=str(Path(*Path(c.run_dir).parts[-2:]))) for c in cells]


def write_plan(out: Path, cells: list[PlannedCell]) -> None:
    """Merge ``cells`` into the directory's plan: a later reproduce into the same directory
    adds its experiments' cells (replacing a cell of the same experiment and name) rather
    than dropping the earlier ones. Two reproduces into one directory merge one after the
    other, under its writer lock, and the plan is replaced whole (a reader never sees half)."""
    with WriterLock(out, wait=BRIEF_WAIT):
        sweep_temporaries(out, below=False)  # a killed merge's
        kept = read_plan(out) if (out / PLAN).is_file() else []
        merged = {(c.experiment, c.cell): c for c in [*kept, *cells]}
        write_text_whole(out / PLAN, json.dumps([asdict(c) for c in merged.values()], indent=1))


def plan(
    names: list[str],
    out: Path,
    scale: float = 1.0,
    overrides: dict[str, Any] | None = None,
    seeds: int = DEFAULT_SEEDS,
) -> tuple[list[PlannedCell], dict[str, RunConfig]]:
    """Every (experiment, cell) with its run directory, and the unique configs to run.

    Each spec that names no seeds of its own is replicated at ``seeds`` seeds, counted up
    from the overrides' seed (by default the run's, 42): a seed is a design axis, so a cell
    two experiments share at one seed still runs once."""
    overrides = dict(overrides or {})
    first = overrides.pop("seed", RunConfig.model_fields["seed"].default)
    cells, configs = [], {}
    for name in names or every_names():
        spec = load_spec(name).replicated(seeds, first)
        for cell, cfg in spec.configs(
            scale, overrides if spec.seeds else {**overrides, "seed": first}
        ):
            digest = cfg.digest()
            run_dir = cell_dir(out, cfg.condition, (digest, *cfg.older_digests()))
            cells.append(PlannedCell(spec.name, cell, str(run_dir), digest, spec.figure, scale))
            configs[str(out / run_dir)] = cfg
    return cells, configs


def cell_dir(out: Path, condition: str, digests: tuple[str, ...]) -> Path:
    """A cell's run directory under ``out``, named by its settings' hash (the first of
    ``digests``); where a reproduce made it under an older form of the same settings (a
    later digest), that directory, so the cell resumes rather than runs again."""
    for older in digests[1:]:
        made = Path("cells") / f"{condition}-{older[:12]}"
        if (out / made / STORE_NAME).is_file():
            return made
    return Path("cells") / f"{condition}-{digests[0][:12]}"


class Interrupted(RuntimeError):
    """SIGTERM or SIGINT reached reproduce: its cells are stopped, finished episodes kept."""


STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)


def _stopped(signum: int) -> str:
    return f"stopped by {signal.Signals(signum).name}; rerun the same command to resume"


def _stop(signum: int, _frame: object) -> None:
    raise Interrupted(_stopped(signum))


def reproduce(
    names: list[str],
    out: Path,
    *,
    scale: float = 1.0,
    overrides: dict[str, Any] | None = None,
    progress: Callable[[int, int], None] | None = None,
    on_wait: Callable[[str], None] | None = None,
    workers: int = 1,
    seeds: int = DEFAULT_SEEDS,
    phases: Phases | None = None,
    **run_options: Any,
) -> list[PlannedCell]:
    """Run every unique cell: the offline ones in ``workers`` processes, the LLM ones here.

    Offline cells are cut into work units (parts of a domain), run longest first, and this
    process writes every store. LLM cells play together in this process (CELLS_AT_ONCE at a
    time), sharing one concurrency limit per endpoint (the work is waiting, not computing).
    Every cell's LLM spend is counted in one account in ``out``, so ``--budget`` holds for
    the whole reproduce. SIGTERM and SIGINT stop the workers or the LLM cells and raise
    Interrupted; what finished is kept and the same command resumes. ``phases`` gains where
    the time went (see run/phases.py).
    """
    cells, configs = plan(names, out, scale, overrides, seeds)
    for cfg in configs.values():
        if cfg.llm is not None:
            from recmarket.agents.llm.backend import require_prices  # the client: openai

            require_prices(cfg.llm, run_options.get("budget"))
    out.mkdir(parents=True, exist_ok=True)
    write_plan(out, cells)
    spend = out / SPEND
    answered = {d: c for d, c in configs.items() if c.uses_llm}
    offline = {d: c for d, c in configs.items() if d not in answered}
    if answered:
        account = SpendAccount(spend, None)
        account.clear_reservations()  # no cell runs yet: only a killed run's are left
        account.close()
    total = sum(cfg.total_episodes for cfg in configs.values())
    done: dict[str, int] = {}

    def report(kind: str, run_dir: str, value: Any) -> None:
        if kind == "done":
            done[run_dir] = value
            if progress:
                progress(sum(done.values()), total)
        elif on_wait:
            on_wait(value)

    previous = {sig: signal.signal(sig, _stop) for sig in STOP_SIGNALS}
    try:
        if offline:
            executor = ProcessExecutor(workers) if workers > 1 else LocalExecutor()
            run_cells(
                offline,
                executor,
                cache_dir=run_options.get("cache_dir"),
                progress=lambda n, _total: report("done", "offline cells", n),
                phases=phases,
            )
        if answered:
            with pinned_native_threads(), spaced_collections():
                asyncio.run(_answer_cells(answered, {**run_options, "spend": spend}, report))
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return cells


# LLM cells played at once. Enough that their streams outnumber any endpoint's slots (16
# LocalRep cells hold 16 x 3 domains x 12 users = 576 streams; a concurrency limit is 64 by
# default), few enough that their prepared domains stay small (about 6 MB each at full
# scale, measured: all 129 cells of the plan at once would hold over 2 GB).
CELLS_AT_ONCE = 16


async def _answer_cells(
    cells: dict[str, RunConfig],
    options: dict[str, Any],
    report: Callable[[str, str, Any], None],
) -> None:
    """Play the LLM cells together in this event loop, up to CELLS_AT_ONCE at a time and
    the longest first, their calls meeting at one limit per endpoint: a cell alone (a dozen
    sequential user streams) cannot keep an endpoint busy, many together can. The first
    cell that fails stops the others, whose finished episodes are kept, and its exception
    is raised as it is."""
    endpoints = Endpoints()
    at_once = asyncio.Semaphore(CELLS_AT_ONCE)

    async def play(run_dir: str, cfg: RunConfig) -> None:
        async with at_once:
            result = await play_cell(
                cfg,
                Path(run_dir),
                endpoints=endpoints,
                progress=lambda _domain, done, _total: report("done", run_dir, done),
                on_wait=lambda notice: report("wait", run_dir, notice),
                **options,
            )
            result.store.close()

    longest_first = sorted(cells.items(), key=lambda cell: -cell[1].total_episodes)
    with _signals_cancel() as stopped_by:
        try:
            await gather_or_cancel(*(play(run_dir, cfg) for run_dir, cfg in longest_first))
        except asyncio.CancelledError:
            if stopped_by:
                raise Interrupted(_stopped(stopped_by[0])) from None
            raise


@contextlib.contextmanager
def _signals_cancel() -> Iterator[list[int]]:
    """While the event loop runs, SIGTERM and SIGINT cancel the current task (the list names
    the signal). Raised from a signal handler, as elsewhere, an exception lands wherever the
    loop happens to be, and inside the HTTP client's own cancel scopes it left the loop
    unable to cancel its tasks and the process hanging; a cancellation is delivered where
    every task can clean up."""
    loop, task, stopped_by = asyncio.get_running_loop(), asyncio.current_task(), []
    assert task is not None  # entered from a coroutine

    def stop(signum: int) -> None:
        stopped_by.append(signum)
        task.cancel()

    for signum in STOP_SIGNALS:
        loop.add_signal_handler(signum, stop, signum)
    try:
        yield stopped_by
    finally:
        for signum in STOP_SIGNALS:
            loop.remove_signal_handler(signum)
            signal.signal(signum, _stop)  # back to this module's handler until reproduce ends
