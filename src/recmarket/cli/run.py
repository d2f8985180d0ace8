"""``recmarket run`` (the main job) and ``recmarket show`` (one episode, role by role)."""

from __future__ import annotations

import functools
import json
from collections import Counter
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn
from rich.table import Table

from recmarket.agents.llm.config import OFFLINE
from recmarket.agents.llm.ledger import BudgetExceeded
from recmarket.analysis.funnel import funnel
from recmarket.cli.app import app, err, fail, out, user_errors
from recmarket.cli.tables import funnel_table, ledger_table
from recmarket.config import RunConfig
from recmarket.config_file import build_config, merge
from recmarket.embedding.cache import default_cache_dir
from recmarket.run.estimate import estimate as estimate_run
from recmarket.run.runner import RunResult
from recmarket.run.runner import run as run_cell

# (flag, path in RunConfig): flags override the config file
FLAG_PATHS: dict[str, tuple[str, ...]] = {
    "--data": ("data",),
    "--domain": ("domains",),
    "--condition": ("condition",),
    "--n": ("market", "n_platforms"),
    "--k": ("market", "shortlist_k"),
    "--j": ("market", "platform_centric_j"),
    "--rho": ("market", "rho"),
    "--catalog-cap": ("market", "catalog_cap"),
    "--p-hit": ("market", "p_hit"),
    "--top-l": ("market", "top_l"),
    "--window": ("market", "memory_window"),
    "--tau": ("market", "tau"),
    "--policies": ("market", "composition"),
    "--reputation-scope": ("reputation_scope",),
    "--requests": ("episodes", "requests"),
    "--users-per-profile": ("episodes", "users_per_profile"),
    "--seed": ("seed",),
}

PARAM_FLAGS = {
    "data": "--data",
    "domain": "--domain",
    "condition": "--condition",
    "n": "--n",
    "k": "--k",
    "j": "--j",
    "rho": "--rho",
    "catalog_cap": "--catalog-cap",
    "p_hit": "--p-hit",
    "top_l": "--top-l",
    "window": "--window",
    "tau": "--tau",
    "policies": "--policies",
    "reputation_scope": "--reputation-scope",
    "requests": "--requests",
    "users_per_profile": "--users-per-profile",
    "seed": "--seed",
}


def _overrides(values: dict[str, Any]) -> dict[str, Any]:
    """Nested RunConfig settings from the flags the user gave (None: not given)."""
    tree: dict[str, Any] = {}
    for flag, value in values.items():
        if value is None or value == []:
            continue
        *parents, leaf = FLAG_PATHS[flag]
        node = tree
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = tuple(value) if isinstance(value, list) else value
    return tree


InputPrice = Annotated[
    float | None, typer.Option("--llm-input-price", min=0, help="USD per million prompt tokens")
]
OutputPrice = Annotated[
    float | None,
    typer.Option("--llm-output-price", min=0, help="USD per million completion tokens"),
]


def llm_overrides(
    backend: str | None,
    model: str | None,
    base_url: str | None,
    key_env: str | None,
    prices: tuple[float | None, float | None] = (None, None),
) -> dict[str, Any]:
    """--backend llm with --llm-*: one model for every role."""
    if backend is None:
        if model is not None:
            fail("--llm-model needs --backend llm")
        return {}
    if backend == "offline":
        return {"llm": None}
    if backend != "llm":
        fail(f"--backend: {backend!r} is not offline or llm")
    if model is None:
        return {}  # the models come from the config file
    spec: dict[str, Any] = {"name": model}
    if base_url:
        spec["base_url"] = base_url
    if key_env:
        spec["api_key_env"] = key_env
    for field_name, price in zip(("input_price", "output_price"), prices, strict=True):
        if price is not None:
            spec[field_name] = price
    return {"llm": {"models": {"main": spec}, "roles": {"default": "main"}}}


def _config(params: dict[str, Any]) -> RunConfig:
    given = {flag: params[name] for name, flag in PARAM_FLAGS.items()}
    overrides = merge(
        _overrides(given),
        llm_overrides(
            params["backend"],
            params["llm_model"],
            params["llm_base_url"],
            params["llm_api_key_env"],
            (params["llm_input_price"], params["llm_output_price"]),
        ),
    )
    cfg = build_config(params["config"], overrides, {v: k for k, v in FLAG_PATHS.items()})
    if params["backend"] == "llm" and (cfg.llm is None or not cfg.llm.models):
        fail("--backend llm needs --llm-model (or an [llm] table in the config file)")
    return cfg


def _failures(rows: list[dict[str, Any]]) -> dict[str, int]:
    return dict(Counter(r["failed_role"] for r in rows if r["failed_role"]))


@app.command("run")
def run(
    config: Annotated[
        Path | None, typer.Option("--config", help="TOML or YAML settings; flags override it")
    ] = None,
    data: Annotated[
        Path | None,
        typer.Option("--data", help="data directory (default: the bundled demo domains)"),
    ] = None,
    domain: Annotated[
        list[str] | None,
        typer.Option("--domain", help="repeatable; default: the three paper domains"),
    ] = None,
    condition: Annotated[
        str | None,
        typer.Option("--condition", help="platform-centric, no-rep or local-rep (default)"),
    ] = None,
    n: Annotated[int | None, typer.Option("--n", help="platforms N (6)")] = None,
    k: Annotated[int | None, typer.Option("--k", help="shortlist capacity K (3)")] = None,
    j: Annotated[int | None, typer.Option("--j", help="Platform-Centric items J (= K)")] = None,
    rho: Annotated[float | None, typer.Option("--rho", help="copy probability (0.1)")] = None,
    catalog_cap: Annotated[int | None, typer.Option("--catalog-cap", help="C (30000)")] = None,
    p_hit: Annotated[float | None, typer.Option("--p-hit", help="target inclusion (0.8)")] = None,
    top_l: Annotated[int | None, typer.Option("--top-l", help="retrieval top-L (5)")] = None,
    window: Annotated[int | None, typer.Option("--window", help="reputation window W (10)")] = None,
    tau: Annotated[float | None, typer.Option("--tau", help="Gumbel temperature (0.1)")] = None,
    policies: Annotated[
        str | None,
        typer.Option(
            "--policies",
            help="equal (default), a named composition, counts such as "
            "strict=3,exaggeration=3, or one policy per platform",
        ),
    ] = None,
    reputation_scope: Annotated[
        str | None, typer.Option("--reputation-scope", help="local (default), style or shared")
    ] = None,
    requests: Annotated[int | None, typer.Option("--requests", help="R per domain (1200)")] = None,
    users_per_profile: Annotated[
        int | None, typer.Option("--users-per-profile", help="S (2)")
    ] = None,
    seed: Annotated[int | None, typer.Option("--seed", help="seed (42)")] = None,
    backend: Annotated[
        str | None,
        typer.Option("--backend", help="offline (default) or llm: one model for every role"),
    ] = None,
    llm_model: Annotated[str | None, typer.Option("--llm-model", help="model name")] = None,
    llm_base_url: Annotated[
        str | None, typer.Option("--llm-base-url", help="OpenAI-compatible base URL")
    ] = None,
    llm_api_key_env: Annotated[
        str | None,
        typer.Option(
            "--llm-api-key-env",
            help="NAME of the environment variable holding the key (default OPENAI_API_KEY)",
        ),
    ] = None,
    llm_input_price: InputPrice = None,
    llm_output_price: OutputPrice = None,
    llm_cache: Annotated[
        Path | None,
        typer.Option("--llm-cache", help="shared LLM call store (default: in the cache directory)"),
    ] = None,
    replay: Annotated[
        bool,
        typer.Option(
            "--replay", help="serve every LLM call from the stores; never use the network"
        ),
    ] = False,
    budget: Annotated[
        float | None,
        typer.Option("--budget", help="stop cleanly (resumable) once this many USD are spent"),
    ] = None,
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
    """Run a market cell over the domains and print its stage-wise funnel."""
    params = dict(locals())
    with user_errors():
        cfg = _config(params)
        target = out_dir or Path("runs") / f"{cfg.condition}-{cfg.digest()[:10]}"
        with Progress(
            "{task.description}",
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
            console=err,
            transient=as_json,
        ) as bar:
            task = bar.add_task(cfg.condition, total=cfg.episodes.requests * len(cfg.domains))

            domain = {"name": ""}

            def progress(name: str, done: int, total: int) -> None:
                domain["name"] = name
                line = escape(f"{cfg.condition} {name}")  # the bar reads markup
                bar.update(task, completed=done, description=line)

            def on_wait(notice: str) -> None:  # a long wait for an endpoint, or its end
                line = f"{cfg.condition} {domain['name']}" + (f" ({notice})" if notice else "")
                bar.update(task, description=escape(line))

            try:
                if executor == "ray":
                    from recmarket.run.executor import RayExecutor, run_distributed

                    store = run_distributed(cfg, target, RayExecutor(address), progress=progress)
                    result = RunResult(store, None)
                elif executor == "local":
                    result = run_cell(
                        cfg,
                        target,
                        progress=progress,
                        replay=replay,
                        budget=budget,
                        llm_cache=llm_cache,
                        on_wait=on_wait,
                    )
                else:
                    fail(f"--executor: {executor!r} is not local or ray")
            except BudgetExceeded as exc:
                err.print(f"stopped: {exc}", style="yellow")
                raise typer.Exit(3) from None
        rows = result.store.episodes()
        summary = funnel(rows)
        result.store.close()
    failures = _failures(rows)
    if as_json:
        ledger = (
            [{"role": r, "model": m, **vars(u)} for (r, m), u in sorted(result.ledger.rows.items())]
            if result.ledger
            else []
        )
        print(
            json.dumps(
                {
                    "run_dir": str(target),
                    "config": json.loads(cfg.model_dump_json()),
                    **summary,
                    "failures": failures,
                    "ledger": ledger,
                    "spent_total": result.spent,
                }
            )
        )
        return
    out.print(
        funnel_table(
            f"{cfg.condition}: N={cfg.market.n_platforms}, "
            f"K={cfg.market.shortlist_k}, policies={cfg.market.composition} "
            f"({target})",
            summary,
        )
    )
    if failures:
        out.print(
            "role failures (kept in every denominator): "
            + ", ".join(f"{role} {count}" for role, count in sorted(failures.items()))
        )
    if result.ledger is not None:
        out.print(ledger_table(result.ledger, result.spent))


@app.command("estimate")
@functools.wraps(run)
def estimate(**params: Any) -> None:
    with user_errors():
        cfg = _config(params)
        rows = estimate_run(cfg, default_cache_dir())
    table = Table(
        title=f"Estimate for {cfg.condition}: {cfg.episodes.requests} requests x "
        f"{len(cfg.domains)} domains (prompt tokens ~ characters / 4)"
    )
    for col in ("role", "answered by", "calls", "prompt tokens", "completion tokens", "USD"):
        table.add_column(col, justify="left" if col in ("role", "answered by") else "right")
    for r in rows:
        table.add_row(
            r.role,
            r.model,
            f"{r.calls:,.0f}",
            f"{r.prompt_tokens:,.0f}",
            f"{r.completion_tokens:,.0f}",
            f"{r.cost:.2f}",
        )
    llm = [r for r in rows if r.model != OFFLINE]
    table.add_row(
        "total (LLM)",
        "",
        f"{sum(r.calls for r in llm):,.0f}",
        f"{sum(r.prompt_tokens for r in llm):,.0f}",
        f"{sum(r.completion_tokens for r in llm):,.0f}",
        f"{sum(r.cost for r in llm):.2f}",
    )
    out.print(table)


estimate.__doc__ = (
    "Calls per role and approximate tokens and cost of a run (same options "
    "as run), before anything is spent."
)
