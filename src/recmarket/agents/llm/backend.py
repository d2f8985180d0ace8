"""The LLM backend: Appendix C prompt cards, any OpenAI-compatible model per role, checked
before the first call the stores cannot answer and wrapped in the call store, ledger and
limits."""

from __future__ import annotations

import asyncio
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from recmarket.agents.llm.adaptive import LimitNotice
from recmarket.agents.llm.api import ChatAPI, ProviderError
from recmarket.agents.llm.attempts import AttemptLog
from recmarket.agents.llm.batch_api import BatchAPI
from recmarket.agents.llm.batch_jobs import MAX_LINES, FolderBatches
from recmarket.agents.llm.batches import BatchQueue, BatchStore, Body, EarlierJobs
from recmarket.agents.llm.cache import CallCache
from recmarket.agents.llm.client import ChatModel, WaitNotice
from recmarket.agents.llm.config import OFFLINE, LLMConfig, ModelConfig, NoBatchAPI
from recmarket.agents.llm.endpoints import Endpoints
from recmarket.agents.llm.ledger import BudgetWithoutPrices, Ledger, SpendAccount
from recmarket.agents.llm.pace import Pace
from recmarket.agents.llm.prices import prices_for, provider_at
from recmarket.agents.llm.role import LLMRole
from recmarket.agents.llm.wrappers import EndpointFailure
from recmarket.agents.roles import Agents
from recmarket.catalogue.providers import LLM_PROVIDERS, chat_api
from recmarket.vocabulary import ROLES


@dataclass(frozen=True)
class Checked:
    """What the check before a run found for one model: one call's latency, the endpoint's
    latency at 1, 2, 4, ... parallel calls and the limit that starts from it (measured
    once per endpoint: see endpoints.py), the structured-output form in use, and the
    pace (writing, reading) its deadlines are sized from."""

    cfg: ModelConfig
    seconds: float
    parallel: list[tuple[int, float]]
    start: int
    reply_format: str
    pace: Pace | None  # None: too short an answer to time, or a timeout fixes the deadline


def refuse_known_without_batches(config: LLMConfig) -> None:
    """NoBatchAPI where a used model is at a provider the price table says runs no batch
    jobs (DeepSeek): said before the run's store is made."""
    if config.batch_dir is not None:
        return
    for name in config.used():
        cfg = config.models[name]
        known = provider_at(cfg)
        if known is not None and not known[1].batch_api:
            raise NoBatchAPI(
                f"--llm-mode batch: {known[0]} ({cfg.base_url}) runs no batch jobs; use "
                "--llm-mode live (or its off-peak hours, where it has them)"
            )


def batch_api_for(config: LLMConfig, cfg: ModelConfig, api: ChatAPI) -> tuple[BatchAPI, Body]:
    """Where a model's batch jobs go (the folder ``vllm run-batch`` answers, or its
    provider's batch API) and how its requests are written; NoBatchAPI, in one line,
    where it has none."""
    body: Body | None = getattr(api, "body", None)
    if body is None:
        raise NoBatchAPI(
            f"--llm-mode batch: provider {cfg.provider!r} of model {cfg.name} writes no "
            "OpenAI-format requests, so its calls cannot go as batch jobs; use --llm-mode live"
        )
    if config.batch_dir is not None:
        most = cfg.max_reply_bytes * MAX_LINES  # the bound the batch API's downloads have
        return FolderBatches(Path(config.batch_dir), cfg.name, most), body
    make = LLM_PROVIDERS.get(cfg.provider).batches
    if make is None:
        raise NoBatchAPI(
            f"--llm-mode batch: provider {cfg.provider!r} of model {cfg.name} has no batch "
            "API; use --llm-mode live"
        )
    jobs: BatchAPI = make(cfg)
    return jobs, body


def require_prices(config: LLMConfig, budget: float | None) -> None:
    """BudgetWithoutPrices when a budget is set and a model some role uses has no prices:
    its spend could not be counted, so the budget could never stop anything."""
    unpriced = sorted(
        config.models[name].name
        for name in config.used()
        if prices_for(config.models[name]) is None
    )
    if budget is not None and unpriced:
        raise BudgetWithoutPrices(
            f"--budget {budget:g}: no prices for {', '.join(unpriced)}, so spend "
            "cannot be counted (the bundled price table has none for them at their base URL); "
            "set input_price and output_price (USD per million tokens) "
            "under [llm.models.NAME] in the config, or --llm-input-price/--llm-output-price"
        )


@dataclass
class LLMBackend:
    """Builds the role bundle for a run: LLM roles where configured, the given offline roles
    elsewhere; one ChatModel per model name, one concurrency limit per endpoint. Money is
    counted in the spend account at ``spend_path`` (the run's store unless a reproduce
    shares one account between its cells); every attempt of every role call is logged in
    the first of ``cache_paths`` (the run's store). The endpoints' limits are the backend's
    own unless ``endpoints`` shares them with other backends (the cells of a reproduce)."""

    config: LLMConfig
    cache_paths: list[Path]
    spend_path: Path | None = None
    replay: bool = False
    budget: float | None = None
    on_wait: WaitNotice | None = None
    on_limit: LimitNotice | None = None  # told the endpoints' adaptive limit when it moves
    endpoints: Endpoints | None = None  # shared limits; by default the backend's own
    provider: Callable[[ModelConfig], ChatAPI] = chat_api  # a fake one in unit tests
    batch: bool = False  # the cell's calls go as batch jobs (``batches``), not live
    ledger: Ledger = field(init=False)
    cache: CallCache = field(init=False)
    attempts: AttemptLog = field(init=False)
    roles: dict[str, LLMRole[Any, Any]] = field(init=False)
    checked: list[Checked] | None = field(init=False, default=None)  # once the check ran
    _check_lock: asyncio.Lock | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        require_prices(self.config, self.budget)
        self.ledger = Ledger(SpendAccount(self.spend_path, self.budget))
        self.cache = CallCache(self.cache_paths)
        if self.endpoints is None:
            self.endpoints = Endpoints(self.on_limit)
        models: dict[str, ChatModel] = {}
        for name, cfg in self.config.models.items():
            limit = self.endpoints.limit_for(cfg)
            models[name] = ChatModel(
                cfg, self.provider(cfg), self.cache, self.ledger, limit, self.replay, self.on_wait
            )
        self.attempts = AttemptLog(self.cache_paths[0] if self.cache_paths else None)
        self.roles = {
            role: LLMRole(
                role,
                models[name],
                self.config.repair_attempts,
                self.attempts,
                text_schema=self.config.text_replies == "sentences",
            )
            for role in ROLES
            if (name := self.config.model_for(role)) != OFFLINE
        }
        for model in self.models:
            model.before_send = self.ensure_checked
        self.batch_store: BatchStore | None = None
        if self.batch:
            refuse_known_without_batches(self.config)
            self.batch_store = BatchStore(self.cache_paths[0] if self.cache_paths else None)
            for model in self.models:
                jobs, body = batch_api_for(self.config, model.cfg, model.api)
                model.batches = BatchQueue(
                    model.cfg, jobs, self.batch_store, body, self.config.batch_poll, self.on_wait
                )
        elif self.cache_paths and not self.replay:
            self._read_earlier_jobs(self.cache_paths[0])

    def _read_earlier_jobs(self, store: Path) -> None:
        """A live run resumed where a batch run was killed: each model's jobs still open
        are read (from the folder or batch API they went to) for the calls they hold, said
        in one warning, and no call of theirs is bought again live."""
        self.batch_store = BatchStore(store)
        for model in self.models:
            open_jobs = self.batch_store.open_jobs(model.cfg)
            if not open_jobs:
                continue
            folders = {job.folder for job in open_jobs.values()}
            folder = folders.pop()
            settings = self.config.model_copy(
                update={"batch_dir": None if folder is None else str(folder)}
            )
            jobs, body = batch_api_for(settings, model.cfg, model.api)
            model.batches = BatchQueue(
                model.cfg,
                jobs,
                self.batch_store,
                body,
                self.config.batch_poll,
                self.on_wait,
                reads_only=True,
            )
            warnings.warn(
                EarlierJobs(
                    f"model {model.cfg.name}: {len(open_jobs)} batch job(s) an earlier run "
                    f"submitted hold {model.batches.open_calls} calls not yet stored; this "
                    "live run reads their answers from them and buys none of those calls "
                    "again"
                ),
                stacklevel=2,
            )

    @property
    def models(self) -> list[ChatModel]:
        """The models some role uses, once each."""
        return list({id(r.model): r.model for r in self.roles.values()}.values())

    def agents(self, offline: Agents) -> Agents:
        """``offline`` with the roles the configuration gives to models answered by them."""
        return replace(offline, **self.roles)

    async def check(self) -> list[Checked]:
        """Check every used model's endpoint with one cheap call; EndpointFailure names the
        first that fails. Then measure each endpoint's parallel latency once and start its
        limit there, and settle each model's structured-output form. Under --replay nothing
        is called."""
        if self.replay:
            return []
        assert self.endpoints is not None  # set in __post_init__
        checked = []
        for model in self.models:
            seconds = await model.check()
            await self._same_model(model)
            if model.batches is not None and not model.batches.reads_only:  # no live call
                await self._batch_api(model)
                form = await self.endpoints.reply_format(model)
                checked.append(Checked(model.cfg, seconds, [], model.limit.current, form, None))
                continue
            measured = await self.endpoints.measure(model)
            start = model.limit.current
            # A tiny call's answered attempt, alone (the check's time holds any backoff).
            fixed = measured[0][1] if measured else seconds
            pace = await self.endpoints.pace(model, fixed, start)
            form = await self.endpoints.reply_format(model)
            checked.append(Checked(model.cfg, seconds, measured, start, form, pace))
        return checked

    async def _batch_api(self, model: ChatModel) -> None:
        """EndpointFailure, before any job is sent, where the endpoint has no batch API."""
        assert model.batches is not None
        try:
            await model.batches.api.find("recmarket-check")
        except ProviderError as error:
            raise EndpointFailure.at(
                model.cfg, f"batch mode: its batch API cannot be used ({error.cause})"
            ) from error

    async def _same_model(self, model: ChatModel) -> None:
        """Refuse an endpoint that now says otherwise of a model than when the stores' calls
        to it were sent (``EndpointFailure``): those answers are another model's under the
        same name. A provider that reports nothing is taken at its name."""
        report_of = getattr(model.api, "model_report", None)
        report = await report_of() if report_of is not None else ""
        if not report:
            return
        cfg = model.cfg
        earlier = self.cache.reported(cfg.name, cfg.base_url)
        if earlier is not None and earlier != report:
            raise EndpointFailure.at(
                cfg,
                f"it now reports the model as {report[:120]}, but the stored answers were "
                f"made when it reported {earlier[:120]}: they are another model's; use "
                "another --llm-cache and --out, or serve it under another name",
            )
        self.cache.record_report(cfg.name, cfg.base_url, report)

    async def ensure_checked(self) -> list[Checked]:
        """The check, made once, when the first call the stores cannot answer is about to
        be sent: a wrong key, URL or model stops the run there (``EndpointFailure``), before
        that episode is committed, and a run the stores can answer whole (a finished run
        rerun, a cell whose calls another cell made) never touches the network."""
        if self._check_lock is None:  # made in the running loop, on first use
            self._check_lock = asyncio.Lock()
        async with self._check_lock:
            if self.checked is None:
                self.checked = await self.check()
        return self.checked

    async def aclose(self) -> None:
        """Close the endpoints' HTTP clients inside the loop that opened them."""
        for model in self.models:
            if model.batches is not None:
                await model.batches.aclose()
            await model.aclose()

    def close(self) -> None:
        """Close the call cache, the attempt log and the spend account."""
        self.cache.close()
        self.attempts.close()
        if self.batch_store is not None:
            self.batch_store.close()
        self.ledger.account.close()
