"""Running one treatment cell: every domain's requests through the round protocol, each
finished episode committed to the run store, and a restart resuming where it stopped.

Reputation is the only state that crosses episodes. On resume it is rebuilt by replaying
the stored records in schedule order, and since every draw is keyed by the episode rather
than by call order, the resumed episodes are exactly those an uninterrupted run makes.
"""

from __future__ import annotations

import asyncio
import gc
import itertools
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from recmarket.agents.judgement import Judge
from recmarket.agents.llm.adaptive import LimitNotice
from recmarket.agents.llm.backend import LLMBackend
from recmarket.agents.llm.client import WaitNotice
from recmarket.agents.llm.config import OFFLINE
from recmarket.agents.llm.endpoints import Endpoints
from recmarket.agents.llm.ledger import Ledger
from recmarket.agents.llm.wrappers import STREAM_LEFT
from recmarket.agents.roles import Agents
from recmarket.agents.rules import offline_agents
from recmarket.conditions import condition
from recmarket.config import RunConfig
from recmarket.data import BUNDLED_DATA_DIR
from recmarket.data.domain import Domain
from recmarket.data.episodes import Request
from recmarket.embedding import Embedder
from recmarket.embedding.cache import default_cache_dir, embed_items
from recmarket.embedding.similarity import similarity_for, visible_text
from recmarket.market.build import DomainMarket, build_market, item_vectors
from recmarket.market.outcome import Outcome
from recmarket.market.protocol import Round
from recmarket.market.reputation import ReputationMemory, scope_key
from recmarket.market.strategy import Strategies
from recmarket.run.loaded import embedder_for, requests_for
from recmarket.run.phases import Phases
from recmarket.run.records import (
    WRITE_BATCH,
    BatchedWrites,
    Commit,
    restore_reputation,
    restore_strategies,
    stored_records,
)
from recmarket.run.store import RunStore
from recmarket.run.threads import pinned_native_threads

# progress(domain, episodes done in this run so far, episodes in the whole run)
Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class PreparedDomain:
    market: DomainMarket
    requests: list[Request]


def prepare(
    cfg: RunConfig,
    name: str,
    embedder: Embedder,
    cache_dir: Path | None,
    strict: bool = False,
    phases: Phases | None = None,
) -> PreparedDomain:
    """A domain loaded and its requests sampled (once per process: see run/loaded.py), its
    items embedded, its market built; each step's time added to ``phases``."""
    phases = phases or Phases()
    data = cfg.data or BUNDLED_DATA_DIR
    with phases.timed("domain data"):
        domain, requests = requests_for(data, name, cfg.episodes, cfg.seed, strict)
    with phases.timed("embedding"):
        vectors = item_vectors(domain, embedder, cache_dir)
        warm_similarity(domain, embedder, vectors, cache_dir)
    with phases.timed("market"):
        market = build_market(domain, requests, vectors, cfg.market, cfg.seed)
    prepared = PreparedDomain(market, requests)
    # The domain, its market and the caches live as long as the run: exempt them from the
    # cyclic collector's full passes, which otherwise rescan them every few hundred
    # episodes (a fifth of an offline run's time). Later objects are collected as usual.
    gc.freeze()
    return prepared


def warm_similarity(
    domain: Domain, embedder: Embedder, vectors: np.ndarray, cache_dir: Path | None = None
) -> None:
    """Fill the process's similarity cache with the texts the offline roles and the
    target_best_fit measure read about items: the retrieval vectors of the evidence texts,
    and the titles and visible fields, embedded in one batch (far cheaper than one by one)
    and kept in the embedding cache beside the items' vectors, so that each worker of a
    reproduce reads them rather than encoding them again."""
    similarity = similarity_for(embedder)
    evidence = [item.evidence for item in domain.items]
    similarity.remember([e.text() for e in evidence], vectors)
    shown = [e.title for e in evidence] + [visible_text(e.title, e.category) for e in evidence]
    new = similarity.unknown(shown)
    if new:
        similarity.remember(new, embed_items(embedder, new, cache_dir))


def cell_round(
    cfg: RunConfig, prepared: PreparedDomain, agents: Agents, embedder: Embedder
) -> Round:
    """The round protocol of a cell on a domain, with an empty memory under LocalRep and
    untaught learners for adaptive platforms."""
    memory = None
    if condition(cfg.condition).reputation:
        market = cfg.market
        memory = ReputationMemory(
            market.memory_window,
            cfg.reputation_scope,
            market.reputation_mechanism,
            market.reputation_decay,
        )
    return Round(
        prepared.market,
        agents,
        embedder,
        cfg.condition,
        memory,
        Judge.of(embedder, cfg.agents.scale),
        Strategies(prepared.market) if cfg.market.adaptive else None,
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


def streams(cfg: RunConfig, requests: list[Request]) -> list[list[Request]]:
    """Requests that must run in order: one reputation history set each under LocalRep
    (a simulated user, a profile, or everybody); otherwise every episode stands alone."""
    if not condition(cfg.condition).reputation:
        return [[r] for r in requests]
    grouped: dict[str, list[Request]] = {}
    for r in requests:
        grouped.setdefault(scope_key(r, cfg.reputation_scope), []).append(r)
    return list(grouped.values())


def restored_round(
    cfg: RunConfig,
    prepared: PreparedDomain,
    agents: Agents,
    embedder: Embedder,
    stored: Iterable[dict[str, Any]],
) -> Round:
    """The round of a domain with the memory and learners its stored episodes left (their
    rows, or the columns ``ord``, ``rep_*`` and ``strategy`` of them, in schedule order)."""
    stored = list(stored)
    round_ = cell_round(cfg, prepared, agents, embedder)
    if round_.memory is not None:
        restore_reputation(round_.memory, prepared.requests, stored_records(stored))
    if round_.strategies is not None:
        restore_strategies(round_.strategies, stored)
    return round_


async def play_domain(
    cfg: RunConfig,
    store: RunStore,
    prepared: PreparedDomain,
    agents: Agents,
    embedder: Embedder,
    tick: Callable[[], None],
    offline: bool = True,
) -> None:
    """Play the domain's unfinished episodes into the store, resuming its stored ones."""
    rows = store.episodes(prepared.market.domain.name)
    round_ = restored_round(cfg, prepared, agents, embedder, rows)
    done = {row["ord"] for row in rows}
    for _ in done:
        tick()
    pending = [r for r in prepared.requests if r.order not in done]
    writes = BatchedWrites(store, WRITE_BATCH if offline else 1, tick)
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
    if round_.strategies is None:
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
    await asyncio.gather(*preparing, *(finish_stream(s) for s in lanes))


async def gather_or_cancel(*coroutines: Awaitable[Any]) -> list[Any]:
    """Await the coroutines as concurrent tasks; when one fails, cancel the others, let them
    finish their cleanup, and raise its exception as it is (not as an ExceptionGroup)."""
    tasks = [asyncio.ensure_future(c) for c in coroutines]
    try:
        return await asyncio.gather(*tasks)
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise


def run(cfg: RunConfig, out_dir: Path, **options: Any) -> RunResult:
    """Run (or resume) a cell into ``out_dir``: ``play_cell`` in an event loop of its own,
    with the native thread pools pinned."""
    with pinned_native_threads():
        return asyncio.run(play_cell(cfg, out_dir, **options))


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
    *,
    agents: Agents | None = None,
    cache_dir: Path | None = None,
    progress: Progress | None = None,
    replay: bool = False,
    budget: float | None = None,
    llm_cache: Path | None = None,
    spend: Path | None = None,
    on_wait: WaitNotice | None = None,
    on_limit: LimitNotice | None = None,
    endpoints: Endpoints | None = None,
) -> RunResult:
    """Run (or resume) a cell into ``out_dir``.

    With an ``[llm]`` configuration the configured roles are answered by models; every call
    is stored in the run's file and, unless ``llm_cache`` is None-and-disabled, in the shared
    call cache, so reruns, resumed runs and cells sharing requests make no repeated calls.
    Money spent is counted in the run's store, or in ``spend`` when several cells share
    one budget (its owner clears stale reservations before the cells start); ``on_wait``
    hears of every long wait for an endpoint, ``on_limit`` of every move of an endpoint's
    adaptive concurrency limit. Cells played at once in one loop share their endpoints'
    limits through ``endpoints`` (see agents/llm/endpoints.py).
    """
    embedder = embedder_for(cfg.embedder)
    agents = agents or offline_agents(embedder, cfg.agents, cfg.roles)
    store = RunStore.open(out_dir, cfg, roles=own_roles(cfg, agents))
    cache = cache_dir or default_cache_dir()
    backend = None
    if cfg.uses_llm:
        assert cfg.llm is not None
        shared = llm_cache if llm_cache is not None else cache / "llm-calls.sqlite"
        backend = LLMBackend(
            cfg.llm,
            [store.path, shared],
            spend or store.path,
            replay=replay,
            budget=budget,
            on_wait=on_wait,
            on_limit=on_limit,
            endpoints=endpoints,
        )
        if spend is None:  # the run owns its account: no other process holds a reservation
            backend.ledger.account.clear_reservations()
        agents = backend.agents(agents)
    total = cfg.total_episodes
    count = 0
    finished = sum(len(store.done(name)) for name in cfg.domains) >= total

    async def play(name: str) -> None:
        prepared = prepare(cfg, name, embedder, cache)

        def tick() -> None:
            nonlocal count
            count += 1
            if progress:
                progress(name, count, total)

        await play_domain(cfg, store, prepared, agents, embedder, tick, offline=backend is None)

    async def play_all() -> None:
        if backend is None:  # one domain after another: a long domain's requests are freed
            for name in cfg.domains:  # before the next is sampled
                await play(name)
            return
        # A wrong key, URL or model stops here, before any episode; a finished run (rerun
        # for its summary) needs no endpoint at all.
        if not finished:
            await backend.check()
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
    return RunResult(store, backend.ledger if backend else None, spent)
