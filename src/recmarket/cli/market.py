"""``recmarket build`` and ``recmarket access-check``: inspect markets without running them."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from recmarket.cli.app import DataDir, Strict, app, out, user_errors
from recmarket.cli.data import report_skips
from recmarket.config import EmbedderConfig, EpisodeConfig, MarketConfig, RunConfig
from recmarket.data import BUNDLED_DATA_DIR
from recmarket.data.domain import find_domains
from recmarket.data.episodes import index_episodes
from recmarket.data.raw import DataError
from recmarket.embedding import load_embedder
from recmarket.embedding.cache import default_cache_dir
from recmarket.market.access import analytic_access, simulate_access
from recmarket.market.build import market_access
from recmarket.run.runner import prepare


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
        cfg = RunConfig(
            data=data,
            seed=seed,
            market=market_cfg,
            episodes=episode_cfg,
            embedder=EmbedderConfig(kind=embedder),
        )
        model = load_embedder(cfg.embedder)
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
            prepared = prepare(cfg, name, model, cache_dir or default_cache_dir(), strict=strict)
            market, reqs, domain = prepared.market, prepared.requests, prepared.market.domain
            report_skips(name, domain.report.examples, domain.report.lines_skipped)
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
