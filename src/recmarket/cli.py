"""The ``recmarket`` command line. Thin: it parses flags into validated configs, calls the
library, and turns known failures into one clear line and a nonzero exit."""

from __future__ import annotations

import json
import sys
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer
from pydantic import ValidationError
from rich.console import Console
from rich.progress import BarColumn, DownloadColumn, Progress, TransferSpeedColumn
from rich.table import Table

from recmarket import __version__
from recmarket.config import EmbedderConfig, EpisodeConfig, MarketConfig
from recmarket.data import BUNDLED_DATA_DIR
from recmarket.data.domain import domain_files, find_domains, load_domain
from recmarket.data.episodes import index_episodes, sample_requests
from recmarket.data.fetch import OFFICIAL_BASE_URL, fetch_category
from recmarket.data.raw import DataError
from recmarket.embedding import EmbedderUnavailable, load_embedder
from recmarket.embedding.cache import default_cache_dir
from recmarket.market.access import analytic_access, simulate_access
from recmarket.market.build import build_market, item_vectors, market_access

app = typer.Typer(no_args_is_help=True, add_completion=False)
data_app = typer.Typer(
    help="Amazon Reviews'23 files: list local domains, fetch official ones.", no_args_is_help=True
)
app.add_typer(data_app, name="data")
# Wide tables stay readable when output goes to a file or a pipe.
out = Console(width=None if sys.stdout.isatty() else 160)
err = Console(stderr=True, width=None if sys.stderr.isatty() else 160)

FLAGS = {  # config field -> the flag that sets it, for error messages
    "n_platforms": "--n",
    "shortlist_k": "--k",
    "rho": "--rho",
    "p_hit": "--p-hit",
    "catalog_cap": "--catalog-cap",
    "top_l": "--top-l",
    "tau": "--tau",
    "composition": "--composition",
    "rotation": "--rotation",
    "requests": "--requests",
    "users_per_profile": "--users-per-profile",
}

DataDir = Annotated[
    Path,
    typer.Option(
        "--data",
        help="directory of {Category}.jsonl[.gz] and "
        "meta_{Category}.jsonl[.gz]; default: bundled demo",
    ),
]
Strict = Annotated[bool, typer.Option("--strict", help="stop at the first malformed line")]


def describe_validation_error(exc: ValidationError) -> str:
    parts = []
    for e in exc.errors():
        field = str(e["loc"][0]) if e["loc"] else ""
        where = FLAGS.get(field, field)
        message = e["msg"].removeprefix("Value error, ")
        parts.append(f"{where}: {message}" if where else message)
    return "; ".join(parts)


@contextmanager
def user_errors() -> Iterator[None]:
    """Known failures become one line on stderr and exit code 2; bugs keep their traceback."""
    try:
        yield
    except ValidationError as exc:
        err.print(f"[red]error:[/red] {describe_validation_error(exc)}", highlight=False)
        raise typer.Exit(2) from None
    except (DataError, EmbedderUnavailable, OSError) as exc:
        err.print(f"[red]error:[/red] {exc}", highlight=False)
        raise typer.Exit(2) from None


def version_callback(value: bool) -> None:
    if value:
        out.print(f"recmarket {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: Annotated[
        bool, typer.Option("--version", callback=version_callback, is_eager=True)
    ] = False,
) -> None:
    """Simulate agentic recommendation markets (user agents, competing platforms,
    presentation policies, outcome-grounded reputation) on Amazon Reviews'23 domains."""


@app.command("access-check")
def access_check(
    n: Annotated[int, typer.Option("--n", help="number of platforms N", min=1)] = 6,
    rho: Annotated[float, typer.Option("--rho", help="copy probability", min=0.0, max=1.0)] = 0.1,
    p_hit: Annotated[float, typer.Option("--p-hit", min=0.0, max=1.0)] = 0.8,
    draws: Annotated[int, typer.Option("--draws", min=2)] = 40_000,
    seed: int = 42,
    as_json: Annotated[bool, typer.Option("--json", help="print one JSON object")] = False,
) -> None:
    """Appendix A.2: analytic vs simulated forced-inclusion access, with the real catalog and
    inclusion code."""
    with user_errors():
        result = simulate_access(n, rho, p_hit, draws, seed)
    if as_json:
        print(result.model_dump_json())
        return
    table = Table(title=f"Forced-inclusion access, N={n}, rho={rho}, p_hit={p_hit}, {draws} draws")
    for col in ("condition", "analytic", "simulated", "SE"):
        table.add_column(col)
    table.add_row(
        "platform-centric",
        f"{result.analytic_platform_centric:.2%}",
        f"{result.simulated_platform_centric:.2%}",
        f"{result.se_platform_centric:.4f}",
    )
    table.add_row(
        "user agent",
        f"{result.analytic_user_agent:.2%}",
        f"{result.simulated_user_agent:.2%}",
        f"{result.se_user_agent:.4f}",
    )
    out.print(table)


@data_app.command("list")
def data_list(
    data: DataDir = BUNDLED_DATA_DIR,
    strict: Strict = False,
    as_json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Local domains with item, user and eligible-episode counts."""
    rows = []
    with user_errors():
        found = find_domains(data)
        if not found:
            raise DataError(
                f"{data}: no domain found (expected {{Category}}.jsonl[.gz] with "
                "meta_{Category}.jsonl[.gz])"
            )
        for files in found:
            domain = load_domain(files, strict=strict)
            rows.append(
                {
                    "domain": files.name,
                    "items": len(domain.items),
                    "users": domain.n_users,
                    "eligible_episodes": len(index_episodes(domain, EpisodeConfig())),
                    "reviews": domain.report.reviews_read,
                    "reviews_without_meta": domain.report.reviews_without_meta,
                    "lines_skipped": domain.report.lines_skipped,
                }
            )
            _report_skips(files.name, domain.report.examples, domain.report.lines_skipped)
    if as_json:
        print(json.dumps(rows))
        return
    table = Table(title=f"Domains in {data}")
    for col in rows[0]:
        table.add_column(col.replace("_", " "), justify="left" if col == "domain" else "right")
    for row in rows:
        table.add_row(*(f"{v:,}" if isinstance(v, int) else str(v) for v in row.values()))
    out.print(table)


def _report_skips(name: str, examples: list[str], skipped: int) -> None:
    if skipped:
        err.print(f"[yellow]{name}: skipped {skipped} unusable lines[/yellow], first ones:")
        for line in examples:
            err.print(f"  {line}", highlight=False, markup=False)


@data_app.command("fetch")
def data_fetch(
    category: Annotated[str, typer.Argument(help="e.g. Musical_Instruments")],
    dest: Annotated[Path, typer.Option("--dest", help="download directory")] = Path("data"),
    base_url: Annotated[
        str, typer.Option("--base-url", help="mirror of the raw files")
    ] = OFFICIAL_BASE_URL,
) -> None:
    """Download a category's official review and meta files (resumable)."""
    with (
        user_errors(),
        Progress(
            "{task.description}", BarColumn(), DownloadColumn(), TransferSpeedColumn(), console=err
        ) as bar,
    ):
        tasks: dict[str, Any] = {}

        def progress(name: str, done: int, total: int | None) -> None:
            if name not in tasks:
                tasks[name] = bar.add_task(name, total=total)
            bar.update(tasks[name], completed=done, total=total)

        paths = fetch_category(category, dest, progress, base_url)
    for path in paths:
        out.print(f"{path}")


@app.command("build")
def build(
    data: DataDir = BUNDLED_DATA_DIR,
    domains: Annotated[
        list[str] | None, typer.Option("--domain", help="repeatable; default: every domain found")
    ] = None,
    requests: Annotated[int, typer.Option("--requests", help="R per domain")] = 1200,
    users_per_profile: Annotated[int, typer.Option("--users-per-profile")] = 2,
    seed: int = 42,
    n: Annotated[int, typer.Option("--n", help="platforms N")] = 6,
    k: Annotated[int, typer.Option("--k", help="shortlist capacity K")] = 3,
    rho: Annotated[float, typer.Option("--rho")] = 0.1,
    p_hit: Annotated[float, typer.Option("--p-hit")] = 0.8,
    catalog_cap: Annotated[int, typer.Option("--catalog-cap")] = 30_000,
    top_l: Annotated[int, typer.Option("--top-l", help="retrieval top-L")] = 5,
    tau: Annotated[float, typer.Option("--tau", help="Gumbel temperature")] = 0.1,
    composition: Annotated[str, typer.Option("--composition")] = "equal",
    rotation: Annotated[int, typer.Option("--rotation")] = 0,
    embedder: Annotated[str, typer.Option("--embedder", help="minilm-m2v or bge")] = "minilm-m2v",
    cache_dir: Annotated[Path | None, typer.Option("--cache-dir")] = None,
    strict: Strict = False,
) -> None:
    """Build every domain's market and print domains, episodes, catalogs and access."""
    with user_errors():
        episode_cfg = EpisodeConfig(requests=requests, users_per_profile=users_per_profile)
        market_cfg = MarketConfig(
            n_platforms=n,
            shortlist_k=k,
            rho=rho,
            p_hit=p_hit,
            catalog_cap=catalog_cap,
            top_l=top_l,
            tau=tau,
            composition=composition,
            rotation=rotation,
        )
        model = load_embedder(EmbedderConfig(kind=embedder))
        names = domains or [f.name for f in find_domains(data)]
        if not names:
            raise DataError(f"{data}: no domain found")
        table = Table(
            title=f"Markets: N={n}, K={k}, rho={rho}, p_hit={p_hit}, "
            f"composition={composition}, seed={seed}"
        )
        for col in (
            "domain",
            "items",
            "eligible",
            "requests",
            "per profile",
            "catalog size",
            "target copies",
            "forced access PC",
            "forced access UA",
        ):
            table.add_column(col, justify="left" if col == "domain" else "right")
        for name in names:
            domain = load_domain(
                domain_files(data, name),
                min_interactions=episode_cfg.min_interactions,
                strict=strict,
            )
            _report_skips(name, domain.report.examples, domain.report.lines_skipped)
            reqs = sample_requests(domain, episode_cfg, seed)
            vectors = item_vectors(domain, model, cache_dir or default_cache_dir())
            market = build_market(domain, reqs, vectors, market_cfg, seed)
            access = market_access(market)
            sizes = market.catalogs.sizes()
            per_profile = Counter(r.profile for r in reqs)
            table.add_row(
                name,
                f"{len(domain.items):,}",
                f"{len(index_episodes(domain, episode_cfg)):,}",
                f"{len(reqs):,}",
                f"{min(per_profile.values())}-{max(per_profile.values())}",
                f"{sizes.min():,}-{sizes.max():,}",
                f"{access.mean_target_copies:.2f}",
                f"{access.platform_centric:.1%}",
                f"{access.user_agent:.1%}",
            )
    out.print(table)
    pc, ua = analytic_access(n, rho, p_hit)
    out.print(f"A.2 analytic forced access: platform-centric {pc:.1%}, user agent {ua:.1%}")


if __name__ == "__main__":  # pragma: no cover
    app()
