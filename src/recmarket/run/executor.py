"""Executing cells as independent work units: in this process, in worker processes, or on a
Ray cluster.

A unit is a part of one domain of one cell: a set of whole reputation streams (under LocalRep
a stream is one history set: Local-12 a simulated user, Style-6 a profile, Shared-1 the
whole domain; without reputation every episode stands alone). A long domain is cut into
several parts, so that no single cell sets the wall time of a plan, and the units run
longest first. Adaptive platforms couple every stream of a domain, so then a domain is one
part, played in schedule order with the stored lessons.

A unit carries its cell's configuration, which part it is, and the domain's stored episodes
(for resume); it returns its episodes as store rows, compressed where they were played, and
the time its phases took. The driver is every store's only writer and commits each unit in
one transaction. Since every draw is keyed by the episode and learners update per period,
the records equal those of the in-process runner, wherever and however split the units run.
"""

from __future__ import annotations

import asyncio
import math
import multiprocessing
import signal
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from multiprocessing.pool import Pool
from pathlib import Path
from typing import Any, Protocol

from recmarket.agents.rules import offline_agents
from recmarket.catalogue.conditions import condition
from recmarket.config import RunConfig
from recmarket.embedding import Embedder
from recmarket.market.outcome import Outcome
from recmarket.market.reputation import history_sets
from recmarket.run.collector import space_collections, spaced_collections
from recmarket.run.episode_rows import EpisodeRows, episode_rows
from recmarket.run.lifeline import die_with_parent
from recmarket.run.loaded import embedder_for, kept
from recmarket.run.phases import Phases
from recmarket.run.records import as_record, keeps_calls
from recmarket.run.rounds import PreparedDomain, prepare, restored_round, streams
from recmarket.run.runner import play_pending
from recmarket.run.store import RunStore
from recmarket.run.threads import pin_native_threads, pinned_native_threads

PARTS_PER_WORKER = 4  # units per worker a plan is cut into at least, for an even finish
MIN_PART = 60  # episodes a part of a domain holds at least: each part prepares the domain
MAX_PART = 5_000  # episodes a part holds at most where streams allow: its rows travel whole
STORED_COLUMNS = ("ord", "rep_platform", "rep_label", "rep_note", "lessons", "written")


@dataclass(frozen=True)
class WorkUnit:
    """A part of one domain of one cell: what a worker plays and hands back."""

    run_dir: str  # the cell the unit belongs to (its store's directory)
    config_json: str
    domain: str
    part: int  # this unit plays streams part, part + parts, part + 2 * parts, ...
    parts: int
    stored: tuple[dict[str, Any], ...]  # the domain's stored episodes (STORED_COLUMNS)
    cache_dir: str
    cost: float  # pending episodes weighted by their role calls: the schedule's sort key
    keep_all: bool = False  # every episode keeps its calls (not replayable: run/records.py)


@dataclass
class UnitResult:
    """A played unit: its rows and where its time went."""

    run_dir: str
    rows: list[EpisodeRows]
    phases: Phases = field(default_factory=Phases)


# A worker's prepared domains, weighed in requests: the parts of one domain arrive together,
# so even one of a long run (100,000 requests, about 0.8 GB) is kept for its other parts.
# Each also holds what no request count shows (its items' vectors, its catalogs: about
# 6 MB, measured on Video_Games at 15 requests, as much as some 2,500 requests take), so a
# study of thousands of small cells keeps about 50 of them, not every one it met (the
# reputation benchmark's 2,854 cells at --scale 0.05 once held 12 GB in a worker).
PREPARED_KEPT = 120_000
PREPARED_FIXED = 2_500
_prepared: OrderedDict[tuple[str, str], PreparedDomain] = OrderedDict()


def _prepare(cfg: RunConfig, unit: WorkUnit, embedder: Embedder, phases: Phases) -> PreparedDomain:
    load = partial(prepare, cfg, unit.domain, embedder, Path(unit.cache_dir), phases=phases)
    key, expected = (cfg.digest(), unit.domain), cfg.episodes.requests + PREPARED_FIXED
    return kept(_prepared, key, load, _weight, PREPARED_KEPT, expected)


def _weight(prepared: PreparedDomain) -> int:
    return len(prepared.requests) + PREPARED_FIXED


def play_unit(unit: WorkUnit) -> UnitResult:
    """Play a unit's pending episodes (in whatever process runs it)."""
    result = UnitResult(unit.run_dir, [])
    phases = result.phases
    with pinned_native_threads(), spaced_collections():
        cfg = RunConfig.model_validate_json(unit.config_json)
        with phases.timed("loading the embedder"):
            embedder = embedder_for(cfg.embedder)
        prepared = _prepare(cfg, unit, embedder, phases)
        done = {row["ord"] for row in unit.stored}
        mine = streams(cfg, prepared.requests)[unit.part :: unit.parts]
        pending = sorted(
            (r for stream in mine for r in stream if r.order not in done), key=lambda r: r.order
        )
        with phases.timed("episodes"):
            agents = offline_agents(embedder, cfg.agents, cfg.roles)
            round_ = restored_round(cfg, prepared, agents, embedder, unit.stored)

            keep = keeps_calls(cfg, unit.keep_all)

            def commit(outcome: Outcome) -> None:
                result.rows.append(episode_rows(as_record(outcome, keep(outcome))))

            asyncio.run(play_pending(cfg, round_, pending, commit))
    return result


def unit_cost(cfg: RunConfig, episodes: int) -> float:
    """An episode's time grows with its role calls: about five, and one per platform."""
    return episodes * (5 + cfg.market.n_platforms + len(cfg.market.entrants))


def plan_units(
    cfg: RunConfig, store: RunStore, cache_dir: Path, part_cost: float = math.inf
) -> list[WorkUnit]:
    """The pending work of a cell: each domain cut into parts of about ``part_cost`` and at
    most MAX_PART episodes (at least MIN_PART each, and no more parts than streams; one
    part when the platforms learn)."""
    units = []
    config_json = cfg.model_dump_json()
    for domain in cfg.domains:
        rows = store.episodes(domain)
        stored = tuple({c: row[c] for c in STORED_COLUMNS} for row in rows)
        pending = cfg.episodes.requests - len(rows)
        if pending <= 0:
            continue
        cost = unit_cost(cfg, pending)
        parts = max(math.ceil(cost / part_cost), math.ceil(pending / MAX_PART))
        lanes = pending
        if condition(cfg.condition).reputation:
            lanes = history_sets(cfg.reputation_scope, cfg.episodes.users_per_profile)
        if cfg.market.adaptive:
            lanes = 1
        parts = max(1, min(parts, lanes, pending // MIN_PART))
        units += [
            WorkUnit(
                str(store.path.parent),
                config_json,
                domain,
                part,
                parts,
                stored,
                str(cache_dir),
                cost / parts,
                not store.replayable,
            )
            for part in range(parts)
        ]
    return units


class Executor(Protocol):
    """Where work units are played: here, in worker processes, or on a Ray cluster."""

    workers: int  # units that run at once: the plan is cut into enough parts for them

    def map(self, units: list[WorkUnit]) -> Iterator[UnitResult]:
        """Play every unit; each result as it is ready, in no promised order."""
        ...


class LocalExecutor:
    """Units one after the other in this process."""

    workers = 1

    def map(self, units: list[WorkUnit]) -> Iterator[UnitResult]:
        """Play the units here, one after the other."""
        return (play_unit(u) for u in units)


def worker_start() -> None:
    """Workers leave signals to the parent, which stops them (a Ctrl-C reaches the whole
    process group; only the parent should act on it), die with it if it is killed
    outright, and run one native thread each."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    die_with_parent()
    pin_native_threads()
    space_collections()


@contextmanager
def worker_pool(
    workers: int, initializer: Callable[..., None] = worker_start, initargs: tuple = ()
) -> Iterator[Pool]:
    """A pool of worker processes, closed and joined when the body finishes, terminated on
    any other way out (an interrupt, an error), so no worker is left behind. Closing and
    then terminating a pool whose workers were still starting hung on its task lock."""
    pool = multiprocessing.get_context().Pool(workers, initializer, initargs)
    finished = False
    try:
        yield pool
        finished = True
    finally:
        if finished:
            pool.close()
        else:
            pool.terminate()
        pool.join()


class ProcessExecutor:
    """Units in a pool of worker processes, in the order given, results as they complete."""

    def __init__(self, workers: int) -> None:
        self.workers = workers

    def map(self, units: list[WorkUnit]) -> Iterator[UnitResult]:
        """Play the units in worker processes, each result as it is ready."""
        if not units:  # no pool at all for nothing to do
            return
        with worker_pool(min(self.workers, len(units))) as pool:
            results = pool.imap_unordered(play_unit, units, chunksize=1)
            for _ in units:
                while True:
                    try:  # a short wait, so that a signal handler runs promptly
                        yield results.next(timeout=0.2)
                        break
                    except multiprocessing.TimeoutError:
                        continue


class RayExecutor:
    """Units as Ray tasks on a local or existing cluster; results as they complete."""

    def __init__(self, address: str | None = None) -> None:
        try:
            import ray
        except ImportError as exc:
            raise RuntimeError(
                "--executor ray needs the 'ray' extra: pip install 'recmarket[ray]'"
            ) from exc
        self.ray: Any = ray
        if not ray.is_initialized():
            ray.init(address=address, include_dashboard=False, log_to_driver=False)
        self.task = ray.remote(play_unit)
        self.workers = max(int(ray.cluster_resources().get("CPU", 1)), 1)

    def map(self, units: list[WorkUnit]) -> Iterator[UnitResult]:
        """Play the units as Ray tasks, each result as it is ready."""
        pending = [self.task.remote(u) for u in units]
        while pending:
            ready, pending = self.ray.wait(pending, num_returns=1)
            yield from (self.ray.get(r) for r in ready)
