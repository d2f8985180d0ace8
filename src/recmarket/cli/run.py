"""``recmarket run`` (the main job) and ``recmarket show`` (one episode, role by role)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn
from rich.table import Table

from recmarket.analysis.funnel import funnel
from recmarket.cli.app import app, err, fail, out, user_errors
from recmarket.market.policies import Policy
from recmarket.run.config_file import build_config
from recmarket.run.runner import run as run_cell
from recmarket.run.store import RunStore

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

FUNNEL_ROWS = (
    ("episodes", "episodes", "{:,}"),
    ("target present", "target_present", "{:.1%}"),
    ("target shortlisted", "target_shortlisted", "{:.1%}"),
    ("target top-1", "target_top1", "{:.1%}"),
    ("target purchased", "target_purchased", "{:.1%}"),
    ("any purchase", "purchase_rate", "{:.1%}"),
    ("no purchase", "no_purchase_rate", "{:.1%}"),
    ("forced inclusion", "forced_inclusion_rate", "{:.1%}"),
    ("mean target copies", "mean_target_copies", "{:.2f}"),
)


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


def funnel_table(title: str, summary: dict[str, Any]) -> Table:
    columns = {**summary["domains"], "macro": summary["macro"]}
    table = Table(title=title)
    table.add_column("stage")
    for name in columns:
        table.add_column(name, justify="right")
    for label, key, fmt in FUNNEL_ROWS:
        table.add_row(label, *(fmt.format(c[key]) for c in columns.values()))
    for policy in Policy:
        table.add_row(
            f"top-1 share: {policy.value}",
            *(f"{c['top1_share_by_policy'][policy.value]:.1%}" for c in columns.values()),
        )
    return table


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
    out_dir: Annotated[
        Path | None,
        typer.Option(
            "--out",
            help="run directory (default: runs/CONDITION-CONFIGHASH); an existing run "
            "with the same settings is resumed",
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print one JSON object")] = False,
) -> None:
    """Run a market cell over the domains and print its stage-wise funnel."""
    given = {
        "--data": data,
        "--domain": domain,
        "--condition": condition,
        "--n": n,
        "--k": k,
        "--j": j,
        "--rho": rho,
        "--catalog-cap": catalog_cap,
        "--p-hit": p_hit,
        "--top-l": top_l,
        "--window": window,
        "--tau": tau,
        "--policies": policies,
        "--reputation-scope": reputation_scope,
        "--requests": requests,
        "--users-per-profile": users_per_profile,
        "--seed": seed,
    }
    with user_errors():
        cfg = build_config(config, _overrides(given), {v: k for k, v in FLAG_PATHS.items()})
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

            def progress(name: str, done: int, total: int) -> None:
                bar.update(task, completed=done, description=f"{cfg.condition} {name}")

            store = run_cell(cfg, target, progress=progress)
        summary = funnel(store.episodes())
        store.close()
    if as_json:
        print(
            json.dumps(
                {"run_dir": str(target), "config": json.loads(cfg.model_dump_json()), **summary}
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


def _find_episode(store: RunStore, episode: str | None) -> dict[str, Any]:
    rows = store.episodes()
    if not rows:
        fail(f"{store.path.parent}: the run has no finished episodes yet")
    if episode is None:
        return rows[0]
    for row in rows:
        if episode in (row["episode_id"], f"{row['domain']}:{row['ord']}"):
            return row
    fail(
        f"no episode {episode!r} in {store.path.parent}; use an episode id such as "
        f"{rows[0]['episode_id']!r} or DOMAIN:ORDER such as '{rows[0]['domain']}:0'"
    )


@app.command("show")
def show(
    run_dir: Annotated[Path, typer.Argument(help="a run directory")],
    episode: Annotated[
        str | None,
        typer.Option(
            "--episode", help="episode id (DOMAIN/USER) or DOMAIN:ORDER; default: the first"
        ),
    ] = None,
) -> None:
    """One episode as the market saw it: every role's input and output, in order."""
    with user_errors():
        store = RunStore.read(run_dir)
        row = _find_episode(store, episode)
        out.rule(
            f"{row['episode_id']}  ({row['condition']}, {row['profile']}, "
            f"user {row['sim_user']}, round {row['round']})"
        )
        for call in store.calls(row["domain"], row["ord"]):
            out.rule(f"{call.seq + 1}. {call.role}", style="cyan")
            out.print("input:", style="bold")
            out.print_json(data=call.input)
            out.print("output:", style="bold")
            out.print_json(data=call.output)
        out.rule("metrics")
        out.print_json(data={k: v for k, v in row.items() if k not in ("domain", "ord")})
