"""Running named experiments: every cell of every spec over the domains, resumably, and
what a study's add-ons play beside them (run/addons.py: a pilot).

Cells are keyed by configuration hash (run/study_plan.py), so a cell shared by two
experiments runs once and a rerun skips finished cells (and resumes an interrupted one).
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from recmarket.agents.llm.endpoints import Endpoints
from recmarket.agents.llm.ledger import SpendAccount
from recmarket.config import RunConfig
from recmarket.experiments.spec import DEFAULT_SEEDS
from recmarket.run.addons import StudyAddOn
from recmarket.run.collector import spaced_collections
from recmarket.run.driver import run_cells
from recmarket.run.executor import LocalExecutor, ProcessExecutor
from recmarket.run.phases import Phases
from recmarket.run.play_options import DEFAULT_PLAY, PlayOptions
from recmarket.run.runner import play_cell
from recmarket.run.study_plan import PlannedCell, plan, write_plan
from recmarket.run.threads import pinned_native_threads
from recmarket.run.unit_choice import UnitChoice
from recmarket.tasks import gather_or_cancel

SPEND = "llm-spend.sqlite"  # the one LLM spend account every cell of the directory shares


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
    addons: Sequence[StudyAddOn] = (),
    options: PlayOptions = DEFAULT_PLAY,
) -> list[PlannedCell]:
    """Run every unique cell: the offline ones in ``workers`` processes, the LLM ones here.

    Offline cells are cut into work units (parts of a domain), run longest first, and this
    process writes every store. LLM cells play together in this process (CELLS_AT_ONCE at a
    time), sharing one concurrency limit per endpoint (the work is waiting, not computing).
    Every cell's LLM spend is counted in one account in ``out``, so ``--budget`` holds for
    the whole reproduce. SIGTERM and SIGINT stop the workers or the LLM cells and raise
    Interrupted; what finished is kept and the same command resumes. ``phases`` gains where
    the time went (see run/phases.py). Each of ``addons`` adds its cells (run/addons.py: a
    pilot's surrogate replays offline, its backend's cells on their units), records itself
    beside the plan, and may add offline cells once everything else is played. ``options``:
    how the cells play (caches, replay, budget), apart from what decides their episodes.
    """
    cells, configs = plan(names, out, scale, overrides, seeds)
    added = [addon.plan(cells, configs, out) for addon in addons]
    units: dict[str, UnitChoice | None] = {}
    answered_added: dict[str, RunConfig] = {}
    for more in added:
        configs = {**configs, **more.offline}
        answered_added |= more.answered
        units |= more.units
    for cfg in [*configs.values(), *answered_added.values()]:
        if cfg.llm is not None:
            from recmarket.agents.llm.backend import require_prices  # the client: openai

            require_prices(cfg.llm, options.budget)
    out.mkdir(parents=True, exist_ok=True)
    write_plan(out, cells)
    added_episodes = sum(addon.record(out) for addon in addons)
    spend = out / SPEND
    answered = {d: c for d, c in configs.items() if c.uses_llm}
    offline = {d: c for d, c in configs.items() if d not in answered}
    answered.update({d: c for d, c in answered_added.items() if d not in offline})
    if answered:
        account = SpendAccount(spend, None)
        account.clear_reservations()  # no cell runs yet: only a killed run's are left
        account.close()
    total = sum(cfg.total_episodes for cfg in configs.values()) + added_episodes
    done: dict[str, int] = {}

    def report(kind: str, run_dir: str, value: Any) -> None:
        if kind == "done":
            done[run_dir] = value
            if progress:
                progress(sum(done.values()), total)
        elif on_wait:
            on_wait(value)

    def play_offline(cells: dict[str, RunConfig]) -> None:
        run_cells(
            cells,
            ProcessExecutor(workers) if workers > 1 else LocalExecutor(),
            cache_dir=options.cache_dir,
            progress=lambda n, _total: report("done", "offline cells", n),
            phases=phases,
        )

    previous = {sig: signal.signal(sig, _stop) for sig in STOP_SIGNALS}
    try:
        if offline:
            play_offline(offline)
        for addon in addons:
            units |= addon.allocate(configs, out)
        if answered:
            with pinned_native_threads(), spaced_collections():
                asyncio.run(_answer_cells(answered, options, spend, report, units))
        for addon in addons:
            if later := addon.after_play(configs, out):
                play_offline(later)
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
    options: PlayOptions,
    spend: Path,
    report: Callable[[str, str, Any], None],
    units: Mapping[str, UnitChoice | None] | None = None,
) -> None:
    """Play the LLM cells together in this event loop, up to CELLS_AT_ONCE at a time and
    the longest first, their calls meeting at one limit per endpoint: a cell alone (a dozen
    sequential user streams) cannot keep an endpoint busy, many together can. The first
    cell that fails stops the others, whose finished episodes are kept, and its exception
    is raised as it is. A pilot's cells play only their ``units``."""
    endpoints = Endpoints()
    units = units or {}
    at_once = asyncio.Semaphore(CELLS_AT_ONCE)

    async def play(run_dir: str, cfg: RunConfig) -> None:
        async with at_once:
            result = await play_cell(
                cfg,
                Path(run_dir),
                options,
                endpoints=endpoints,
                progress=lambda _domain, done, _total: report("done", run_dir, done),
                on_wait=lambda notice: report("wait", run_dir, notice),
                units=units.get(run_dir),
                spend=spend,
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
