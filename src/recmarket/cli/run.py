"""``recmarket run`` (the main job) and ``recmarket show`` (one episode, role by role)."""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from recmarket.agents.llm.config import OFFLINE
from recmarket.agents.llm.ledger import BudgetExceeded
from recmarket.analysis.dynamics import entrant_top1_by_block, policy_mix_by_block
from recmarket.analysis.failures import failure_warning
from recmarket.analysis.funnel import FORMER_NAMES, funnel, with_former_names
from recmarket.cli.app import app, err, fail, out, progress_bar, user_errors
from recmarket.cli.llm_options import Budget, LlmCache, LLMChoice, Replay, with_llm
from recmarket.cli.options import FLAG_OF_PATH, RUN, ConfigPath, with_settings
from recmarket.cli.plan_tables import BatchHours, Deadline, PlanFlag, print_run_plan
from recmarket.cli.tables import funnel_table, ledger_table
from recmarket.config import RunConfig
from recmarket.config_file import build_config, merge
from recmarket.embedding.cache import default_cache_dir
from recmarket.run.cost_plan import BATCH_HOURS
from recmarket.run.estimate import RoleEstimate, cell_estimate, price_sources
from recmarket.run.play_options import PlayOptions
from recmarket.run.rounds import batchable
from recmarket.run.runner import RunResult
from recmarket.run.runner import run as run_cell


def _config(config: Path | None, settings: dict[str, Any], llm: LLMChoice) -> RunConfig:
    """The settings of a run: the config file, overridden by the flags that were given."""
    cfg = build_config(config, merge(settings, llm.settings), FLAG_OF_PATH)
    if llm.required and not cfg.uses_llm:
        fail("--backend llm needs --llm-model (or an [llm] table in the config file)")
    return cfg


def llm_guards_given(cfg: RunConfig, params: dict[str, Any]) -> list[str]:
    """The LLM guards among ``params`` that were given (``--replay``, ``--budget``,
    ``--llm-cache``); refused where the settings make no LLM call, which would ignore them."""
    llm_only = {"--replay": params["replay"], "--budget": params["budget"] is not None}
    llm_only["--llm-cache"] = params["llm_cache"] is not None
    given = [flag for flag, on in llm_only.items() if on]
    if given and not cfg.uses_llm:
        fail(f"{', '.join(given)} applies to LLM runs only (--backend llm or an [llm] table)")
    return given


def _refuse_what_does_not_apply(cfg: RunConfig, params: dict[str, Any]) -> None:
    """Options that would be silently ignored with these settings are refused instead."""
    uses_llm = cfg.uses_llm
    given = llm_guards_given(cfg, params)
    if params["executor"] == "ray" and (uses_llm or given):
        fail(
            "--executor ray runs the offline backend; run LLM cells with the local executor "
            "(their calls are concurrent already)"
        )
    if params["address"] is not None and params["executor"] != "ray":
        fail("--address names a Ray cluster: it needs --executor ray")
    if uses_llm and cfg.llm is not None and cfg.llm.mode == "batch" and batchable(cfg):
        from recmarket.agents.llm.backend import refuse_known_without_batches

        refuse_known_without_batches(cfg.llm)  # before the progress bar: one line


def _failures(rows: list[dict[str, Any]]) -> dict[str, int]:
    return dict(Counter(r["failed_role"] for r in rows if r["failed_role"]))


@app.command("run")
@with_settings(RUN)
@with_llm
def run(
    *,
    settings: dict[str, Any],
    llm: LLMChoice,
    config: ConfigPath = None,
    llm_cache: LlmCache = None,
    replay: Replay = False,
    budget: Budget = None,
    out_dir: Annotated[
        Path | None,
        typer.Option(
            "--out",
            help="run directory (default: runs/CONDITION-CONFIGHASH); an existing run "
            "with the same settings is resumed",
        ),
    ] = None,
    executor: Annotated[
        str,
        typer.Option("--executor", help="local (default) or ray: reputation streams as Ray tasks"),
    ] = "local",
    address: Annotated[
        str | None,
        typer.Option("--address", help="an existing Ray cluster (default: start a local one)"),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print one JSON object")] = False,
) -> None:
    """Run a market cell over the domains and print its stage-wise funnel. The run is a
    study of one cell: the kept cards of its user model and models are put beside it, as
    reproduce does, for ``recmarket report`` on it."""
    params = dict(locals())
    with user_errors():
        cfg = _config(config, settings, llm)
        _refuse_what_does_not_apply(cfg, params)
        target = out_dir or Path("runs") / f"{cfg.condition}-{cfg.digest()[:10]}"
        result = played(cfg, target, params)
        rows = result.store.episodes()
        warning = failure_warning(rows, result.store.db)
        result.store.close()
        from recmarket.study.cards import keep_beside

        keep_beside(target, cfg)  # a one-cell study: its cards beside it, as reproduce does
    if warning:
        err.print(f"warning: {escape(warning)}", style="yellow")
    if as_json:
        print(json.dumps(_as_json(cfg, target, result, rows, warning)))
    else:
        _print_funnel(cfg, target, result, rows)


def played(cfg: RunConfig, target: Path, params: dict[str, Any]) -> RunResult:
    """The cell played (or resumed) by the chosen executor under a progress bar that names
    the domain, the endpoint's concurrency limit and any long wait; a budget reached stops
    the command with exit code 3."""
    with progress_bar(params["as_json"]) as bar:
        task = bar.add_task(cfg.condition, total=cfg.total_episodes)
        shown = {"domain": "", "limit": "", "wait": ""}

        def describe() -> None:
            line = f"{cfg.condition} {shown['domain']}{shown['limit']}{shown['wait']}"
            bar.update(task, description=escape(line))  # the bar reads markup

        # With models answering, a cell's domains play at once (runner.play_cell): the
        # line then names them all rather than whichever finished an episode last.
        together = cfg.uses_llm and len(cfg.domains) > 1

        def progress(name: str, done: int, total: int) -> None:
            shown["domain"] = f"{len(cfg.domains)} domains" if together else name
            bar.update(task, completed=done)
            describe()

        def on_wait(notice: str) -> None:  # a long wait for an endpoint, or its end
            shown["wait"] = f" ({notice})" if notice else ""
            describe()

        def on_limit(limit: int) -> None:  # the endpoint's adaptive concurrency limit
            shown["limit"] = f", limit {limit}"
            describe()

        try:
            if params["executor"] == "ray":
                from recmarket.run.driver import run_distributed
                from recmarket.run.executor import RayExecutor

                executor = RayExecutor(params["address"])
                return RunResult(run_distributed(cfg, target, executor, progress=progress), None)
            if params["executor"] == "local":
                return run_cell(
                    cfg,
                    target,
                    PlayOptions(
                        replay=params["replay"],
                        budget=params["budget"],
                        llm_cache=params["llm_cache"],
                    ),
                    progress=progress,
                    on_wait=on_wait,
                    on_limit=on_limit,
                )
            fail(f"--executor: {params['executor']!r} is not local or ray")
        except BudgetExceeded as exc:
            err.print(f"stopped: {exc}", style="yellow")
            raise typer.Exit(3) from None


def _as_json(
    cfg: RunConfig,
    target: Path,
    result: RunResult,
    rows: list[dict[str, Any]],
    warning: str | None,
) -> dict[str, Any]:
    """What ``--json`` prints: the run's directory and settings, its funnel (each measure
    shown at the funnel by its name, and until 0.2 by its former key too: ``former_names``),
    the episodes at each place of the target by judged fit in its pool ("none": not
    pooled), every measure a cell is measured by with its interval (an installed one's
    too), failures, dynamics, and the money its models cost."""
    ledger = (
        [{"role": r, "model": m, **vars(u)} for (r, m), u in sorted(result.ledger.rows.items())]
        if result.ledger
        else []
    )
    return {
        "run_dir": str(target),
        "config": json.loads(cfg.model_dump_json()),
        **_funnel_with_former_names(funnel(rows, cfg)),
        "former_names": {old: f"{new} (removed in 0.2)" for old, new in FORMER_NAMES.items()},
        "target_fit_rank": _fit_ranks(rows),
        "measures": _measures(cfg, rows),
        "failures": _failures(rows),
        "warning": warning,
        **dynamics(cfg, rows),
        "ledger": ledger,
        "spent_total": result.spent,
        "notes": list(result.notes),
    }


PARTS = (("estimate", ""), ("low", "_low"), ("high", "_high"))  # a measure's cells.csv columns


def _measures(cfg: RunConfig, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Each registered market measure of the run ({name: {estimate, low, high}}, as the
    report's cells.csv has them) and how the intervals were made."""
    from recmarket.analysis.market_measures import market_measures, shown_at

    found = market_measures(cfg, rows)

    def number(key: str) -> Any:  # JSON has no NaN: a measure nothing defined is null
        value = found[key]
        return None if isinstance(value, float) and math.isnan(value) else value

    measures: dict[str, Any] = {
        m.name: {part: number(f"{m.name}{end}") for part, end in PARTS} for m in shown_at("cells")
    }
    return measures | {"interval": found["measures_interval"]}


def _funnel_with_former_names(found: dict[str, Any]) -> dict[str, Any]:
    """The funnel with each summary's former keys beside its measures' names."""
    return {
        "domains": {name: with_former_names(s) for name, s in found["domains"].items()},
        "macro": with_former_names(found["macro"]),
    }


def _fit_ranks(rows: list[dict[str, Any]]) -> dict[str, int]:
    """Episodes by the target's place by judged fit in its pool, best first."""
    ranks = Counter(r.get("target_fit_rank") for r in rows)
    ordered = sorted((k for k in ranks if k is not None), key=int)
    return {str(k): ranks[k] for k in ordered} | ({"none": ranks[None]} if None in ranks else {})


def _print_funnel(
    cfg: RunConfig, target: Path, result: RunResult, rows: list[dict[str, Any]]
) -> None:
    """The funnel table, the role failures kept in its denominators, and the ledger."""
    out.print(
        funnel_table(
            f"{cfg.condition}: N={cfg.market.n_platforms}, "
            f"K={cfg.market.shortlist_k}, policies={cfg.market.composition} "
            f"({target})",
            funnel(rows, cfg),
        )
    )
    if failures := _failures(rows):
        out.print(
            "role failures (kept in every denominator): "
            + ", ".join(f"{role} {count}" for role, count in sorted(failures.items()))
        )
    if result.ledger is not None:
        out.print(ledger_table(result.ledger, result.spent))
    for note in result.notes:
        out.print(note, style="yellow")


def dynamics(cfg: RunConfig, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Where they apply: the adaptive platforms' policy mix, and the entrants' Top-1 share,
    by block of rounds."""
    rounds, market, out = cfg.episodes.requests, cfg.market, {}
    if market.adaptive:
        out["policy_mix_by_block"] = policy_mix_by_block(rows, rounds)
    if market.entrants:
        out["entrant_top1_by_block"] = entrant_top1_by_block(rows, rounds, market.entrant_ids)
    return out


@app.command("estimate")
@with_settings(RUN)
@with_llm
def estimate(
    *,
    settings: dict[str, Any],
    llm: LLMChoice,
    config: ConfigPath = None,
    plan: PlanFlag = False,
    deadline: Deadline = None,
    batch_hours: BatchHours = BATCH_HOURS,
    pilot: Annotated[
        Path | None,
        typer.Option(
            "--pilot",
            help="a call store (a run's .sqlite, or the shared llm-calls.sqlite) holding the "
            "models' answers to this run's first requests: the estimate replays them, so its "
            "calls, re-asks and tokens are the models' own rather than typical",
        ),
    ] = None,
) -> None:
    """Calls per role and approximate tokens and cost of a run (the settings of run),
    before anything is spent."""
    with user_errors():
        cfg = _config(config, settings, llm)
        if pilot is not None and not pilot.is_file():
            fail(f"--pilot {pilot}: no such call store (give a .sqlite file)")
        shape = cell_estimate(cfg, default_cache_dir(), pilot=pilot)
        estimates = shape.roles
    out.print(
        estimate_table(
            f"Estimate for {cfg.condition}: {cfg.episodes.requests} requests x "
            f"{len(cfg.domains)} domains (prompt tokens ~ characters / 4)",
            estimates,
        )
    )
    if plan:
        print_run_plan(shape, cfg.total_episodes, deadline, batch_hours)
    for source in price_sources(cfg):
        out.print(f"prices of {source}")


def estimate_table(title: str, estimates: list[RoleEstimate]) -> Table:
    """Each role's calls, tokens and cost, with the total of those a model answers."""
    table = Table(title=title)
    columns = ("role", "answered by", "calls", "prompt tokens", "of them cache hits")
    for col in (*columns, "completion tokens", "USD peak", "USD off-peak"):
        table.add_column(col, justify="left" if col in ("role", "answered by") else "right")
    answered = [r for r in estimates if r.model != OFFLINE]
    total = RoleEstimate(
        "total (LLM)",
        "",
        calls=sum(r.calls for r in answered),
        prompt_tokens=sum(r.prompt_tokens for r in answered),
        completion_tokens=sum(r.completion_tokens for r in answered),
        cost=sum(r.cost for r in answered),
        off_peak_cost=sum(r.off_peak_cost for r in answered),
        cached_tokens=sum(r.cached_tokens for r in answered),
    )
    for r in [*estimates, total]:
        table.add_row(
            r.role,
            r.model,
            f"{r.calls:,.0f}",
            f"{r.prompt_tokens:,.0f}",
            f"{r.cached_tokens:,.0f}",
            f"{r.completion_tokens:,.0f}",
            f"{r.cost:.2f}",
            f"{r.off_peak_cost:.2f}",
            style="bold" if r is total else None,
        )
    return table
