"""Running one treatment cell: every domain's requests through the round protocol, each
finished episode committed to the run store, and a restart resuming where it stopped.

Reputation is the only state that crosses episodes. On resume it is rebuilt by replaying
the stored records in schedule order, and since every draw is keyed by the episode rather
than by call order, the resumed episodes are exactly those an uninterrupted run makes.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from recmarket.agents.llm.adaptive import LimitNotice
from recmarket.agents.llm.client import WaitNotice
from recmarket.agents.llm.config import OFFLINE
from recmarket.agents.llm.endpoints import Endpoints
from recmarket.agents.llm.ledger import Ledger
from recmarket.agents.llm.wrappers import STREAM_LEFT
from recmarket.agents.roles import Agents
from recmarket.agents.rules import offline_agents
from recmarket.config import RunConfig
from recmarket.data.episodes import Request
from recmarket.embedding import Embedder
from recmarket.embedding.cache import default_cache_dir
from recmarket.market.outcome import Outcome
from recmarket.market.protocol import Round
from recmarket.run.collector import spaced_collections
from recmarket.run.loaded import embedder_for
from recmarket.run.play_options import DEFAULT_PLAY, PlayOptions
from recmarket.run.records import (
    WRITE_BATCH,
    BatchedWrites,
    Commit,
    keeps_calls,
)
from recmarket.run.rounds import (
    PreparedDomain,
    batchable,
    prepare,
    restored_round,
    streams,
)
from recmarket.run.store import RunStore
from recmarket.run.threads import pinned_native_threads
from recmarket.run.unit_choice import UnitChoice
from recmarket.tasks import gather_or_cancel

# progress(domain, episodes done in this run so far, episodes in the whole run)
Progress = Callable[[str, int, int], None]


# Batch mode's word on a cell whose calls wait on one another
LIVE_CHAINS = (
    "--llm-mode batch: this cell's episodes wait on earlier ones (reputation, or platforms "
    "that learn), so its calls were sent live; batch jobs carry NoRep and Platform-Centric "
    "cells"
)
OFFLINE_BATCH = 256  # requests prepared together: their needs are embedded in one batch
PREFETCH = 3  # batches prepared at once in LLM runs
OFFLINE_AHEAD = 4  # offline batches prepared and not yet finished: bounds a long run's memory


@dataclass
class RunResult:
    """What ``run`` leaves: the run's store (open), and the LLM ledger and spend when a
    model answered some role."""

    store: RunStore
    ledger: Ledger | None  # tokens and cost per role and model, when an LLM answered
    spent: float | None = None  # USD in the spend account: this run and the earlier ones
    notes: tuple[str, ...] = ()  # what the run did otherwise than asked, and why


async def play_domain(
    cfg: RunConfig,
    store: RunStore,
    prepared: PreparedDomain,
    agents: Agents,
    embedder: Embedder,
    tick: Callable[[], None],
    offline: bool = True,
    keep_calls: bool = False,
    units: UnitChoice | None = None,
) -> None:
    """Play the domain's unfinished episodes into the store, resuming its stored ones;
    ``keep_calls`` keeps every episode's role calls (run/records.py); ``units`` plays only
    the episodes of a pilot's units (a unit's history is whole or absent, so the memory
    its stored episodes rebuild is the one it had)."""
    rows = store.episodes(prepared.market.domain.name)
    round_ = restored_round(cfg, prepared, agents, embedder, rows)
    done = {row["ord"] for row in rows}
    for _ in done:
        tick()
    pending = [r for r in prepared.requests if r.order not in done]
    if units is not None:
        pending = [r for r in pending if units.plays(r)]
    # a pilot's store holds some units only: its calls cannot be made again from its settings
    keep = keeps_calls(cfg, everything=keep_calls or not store.replayable or units is not None)
    writes = BatchedWrites(store, WRITE_BATCH if offline else 1, tick, keep)
    try:
        await play_pending(cfg, round_, pending, writes, offline)
    finally:
        writes.flush()


async def play_pending(
    cfg: RunConfig, round_: Round, pending: list[Request], commit: Commit, offline: bool = True
) -> None:
    """Play ``pending`` episodes (in schedule order), handing each to ``commit`` as it
    finishes.

    Stages 1-2 of every pending request are prepared in batches as concurrent tasks; each
    reputation stream then finishes its episodes in schedule order as their preparation
    completes, and different streams run concurrently. Results do not depend on the
    interleaving: every draw is keyed by the episode, and streams share no state. Adaptive
    platforms are state all streams share, updated once per learning period, so with them
    the periods are played one after the other (concurrently within each).
    """
    if not round_.strategies.adaptive:
        await play_concurrently(cfg, round_, pending, commit, offline)
        return
    period = cfg.market.learning_period
    ahead = OFFLINE_BATCH if offline else period  # needs asked for ahead of the proposals
    for start in range(0, len(pending), ahead):
        chunk = pending[start : start + ahead]  # in schedule order
        staged = {o.request.order: o for o in await round_.ask_needs(chunk)}

        async def propose(batch: list[Request], staged: dict[int, Outcome] = staged) -> list:
            return await round_.propose([staged.pop(r.order) for r in batch])

        for _, phase in itertools.groupby(chunk, key=lambda r: r.order // period):
            await play_concurrently(cfg, round_, list(phase), commit, offline, propose)


async def play_concurrently(
    cfg: RunConfig,
    round_: Round,
    pending: list[Request],
    commit: Commit,
    offline: bool,
    stage: Callable[[list[Request]], Awaitable[list[Outcome]]] | None = None,
) -> None:
    """Play ``pending`` episodes: preparation in batches (stages 1-2, or what ``stage`` does
    of them), each stream's finishes in order."""
    stage = stage or round_.prepare
    loop = asyncio.get_running_loop()
    ready: dict[int, asyncio.Future[Outcome]] = {r.order: loop.create_future() for r in pending}

    lanes = streams(cfg, pending)
    # Offline, large batches make embedding cheap, and a batch holds its slot until its last
    # episode is finished, so at most OFFLINE_AHEAD batches of prepared episodes are held at
    # once (however long the domain). With LLMs, a batch is one round of every stream and
    # only a few are prepared at once, so the episodes' own calls never queue behind a long
    # backlog of preparation calls at the endpoint's concurrency limit.
    size = OFFLINE_BATCH if offline else max(len(lanes), 1)
    batches = [pending[i : i + size] for i in range(0, len(pending), size)]
    ahead = asyncio.Semaphore(OFFLINE_AHEAD if offline else PREFETCH)
    unfinished: dict[int, int] = {}  # offline: episodes of each batch not finished yet
    batch_of = {r.order: i // size for i, r in enumerate(pending)}

    def publish(outcomes: list[Outcome]) -> None:
        for outcome in outcomes:
            ready[outcome.request.order].set_result(outcome)

    async def prepare_in_order() -> None:
        """Offline: one batch after another, strictly in schedule order (so the earliest
        unfinished batch is always prepared and the streams can always go on)."""
        for number, batch in enumerate(batches):
            await ahead.acquire()  # freed when the batch's last episode is finished
            unfinished[number] = len(batch)
            publish(await stage(batch))

    async def prepare_batch(batch: list[Request]) -> None:
        async with ahead:
            publish(await stage(batch))

    async def finish_stream(stream: list[Request]) -> None:
        for left, request in zip(range(len(stream), 0, -1), stream, strict=True):
            STREAM_LEFT.set(left)  # this stream's task only: its calls' place in the queue
            outcome = await ready[request.order]
            del ready[request.order]  # a recorded episode is freed, not kept to the run's end
            commit(await round_.finish(outcome))
            if offline:
                number = batch_of[request.order]
                unfinished[number] -= 1
                if not unfinished[number]:
                    ahead.release()

    preparing = [prepare_in_order()] if offline else [prepare_batch(b) for b in batches]
    await gather_or_cancel(*preparing, *(finish_stream(s) for s in lanes))


def run(
    cfg: RunConfig,
    out_dir: Path,
    options: PlayOptions = DEFAULT_PLAY,
    *,
    agents: Agents | None = None,
    progress: Progress | None = None,
    on_wait: WaitNotice | None = None,
    on_limit: LimitNotice | None = None,
) -> RunResult:
    """Run (or resume) a cell into ``out_dir``: ``play_cell`` in an event loop of its own,
    with the native thread pools pinned."""
    with pinned_native_threads(), spaced_collections():
        return asyncio.run(
            play_cell(
                cfg,
                out_dir,
                options,
                agents=agents,
                progress=progress,
                on_wait=on_wait,
                on_limit=on_limit,
            )
        )


def own_roles(cfg: RunConfig, agents: Agents) -> dict[str, str]:
    """The roles answered from outside recmarket that the run's settings do not name: those
    an ``[llm]`` table gives to a model and those ``roles`` names are in the settings' hash
    already (and the driver of a reproduce, which builds agents from the settings alone,
    must open the same store)."""
    by_model = cfg.llm.model_for if cfg.llm is not None and cfg.uses_llm else None
    return {
        role: who
        for role, who in agents.identity().items()
        if role not in cfg.roles and (by_model is None or by_model(role) == OFFLINE)
    }


async def play_cell(
    cfg: RunConfig,
    out_dir: Path,
    options: PlayOptions = DEFAULT_PLAY,
    *,
    agents: Agents | None = None,
    progress: Progress | None = None,
    spend: Path | None = None,
    on_wait: WaitNotice | None = None,
    on_limit: LimitNotice | None = None,
    endpoints: Endpoints | None = None,
    units: UnitChoice | None = None,
) -> RunResult:
    """Run (or resume) a cell into ``out_dir`` (only the episodes of ``units``, for a pilot).

    With an ``[llm]`` configuration the configured roles are answered by models; every call
    is stored in the run's file and in the shared call cache (``options.llm_cache``, by
    default in the cache directory), so reruns, resumed runs and cells sharing requests make
    no repeated calls; ``options`` say how the cell plays (caches, replay, budget).
    Money spent is counted in the run's store, or in ``spend`` when several cells share
    one budget (its owner clears stale reservations before the cells start); ``on_wait``
    hears of every long wait for an endpoint, ``on_limit`` of every move of an endpoint's
    adaptive concurrency limit. Cells played at once in one loop share their endpoints'
    limits through ``endpoints`` (see agents/llm/endpoints.py). ``options.keep_calls`` stores every
    offline episode's role calls, not only the first of each domain's (for a run whose calls
    will all be read, as calibration reads them: reading them otherwise plays the run again).
    """
    batch = cfg.llm is not None and cfg.uses_llm and cfg.llm.mode == "batch"
    if batch and batchable(cfg):
        from recmarket.agents.llm.backend import refuse_known_without_batches

        assert cfg.llm is not None
        refuse_known_without_batches(cfg.llm)  # before the store is made
    embedder = embedder_for(cfg.embedder)
    agents = agents or offline_agents(embedder, cfg.agents, cfg.roles)
    store = RunStore.open(out_dir, cfg, roles=own_roles(cfg, agents))
    cache = options.cache_dir or default_cache_dir()
    backend = None
    notes: tuple[str, ...] = ()
    if cfg.uses_llm:
        assert cfg.llm is not None
        batch = cfg.llm.mode == "batch" and batchable(cfg)
        if cfg.llm.mode == "batch" and not batch:
            notes = (LIVE_CHAINS,)
        from recmarket.agents.llm.backend import LLMBackend  # the openai client: LLM runs only

        shared = options.llm_cache or cache / "llm-calls.sqlite"
        backend = LLMBackend(
            cfg.llm,
            [store.path, shared],
            spend or store.path,
            replay=options.replay,
            budget=options.budget,
            on_wait=on_wait,
            on_limit=on_limit,
            endpoints=endpoints,
            batch=batch,
        )
        if spend is None:  # the run owns its account: no other process holds a reservation
            backend.ledger.account.clear_reservations()
        agents = backend.agents(agents)
    total = cfg.total_episodes
    count = 0

    async def play(name: str) -> None:
        prepared = prepare(cfg, name, embedder, cache)

        def tick() -> None:
            nonlocal count
            count += 1
            if progress:
                progress(name, count, total)

        await play_domain(
            cfg, store, prepared, agents, embedder, tick, backend is None, options.keep_calls, units
        )

    async def play_all() -> None:
        if backend is None:  # one domain after another: a long domain's requests are freed
            for name in cfg.domains:  # before the next is sampled
                await play(name)
            return
        # The endpoint is checked before the first call the stores cannot answer
        # (LLMBackend.ensure_checked), so a run they answer whole needs no network.
        # The domains share nothing but the endpoint: their streams wait on it together.
        await gather_or_cancel(*(play(name) for name in cfg.domains))

    spent = None
    try:
        await play_all()
    finally:
        if backend is not None:
            try:
                await backend.aclose()  # the HTTP clients, inside the loop that opened them
            finally:
                spent = backend.ledger.account.spent
                backend.close()
    return RunResult(store, backend.ledger if backend else None, spent, notes)
