"""``recmarket build`` and ``recmarket access-check``: inspect markets without running them."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from recmarket.cli.app import Strict, app, out, user_errors
from recmarket.cli.data import report_skips
from recmarket.cli.options import FLAG_OF_PATH, MARKET, RUN, with_settings
from recmarket.config_file import build_config
from recmarket.data.domain import find_domains
from recmarket.data.episodes import index_episodes
from recmarket.data.raw import DataError
from recmarket.data.sources import data_directory
from recmarket.embedding import load_embedder
from recmarket.embedding.cache import default_cache_dir
from recmarket.market.access import analytic_access, simulate_access
from recmarket.market.build import market_access
from recmarket.run.rounds import prepare

ACCESS = tuple(f for f in MARKET if f.flag in ("--n", "--rho", "--p-hit"))
BUILD = tuple(f for f in RUN if f.flag not in ("--condition", "--reputation-scope"))


@app.command("access-check")
@with_settings((*ACCESS, *(f for f in RUN if f.flag == "--seed")))
def access_check(
    *,
    settings: dict[str, Any],
    draws: Annotated[int, typer.Option("--draws", min=2, help="simulated episodes")] = 40_000,
    as_json: Annotated[bool, typer.Option("--json", help="print one JSON object")] = False,
) -> None:
    """Appendix A.2: analytic vs simulated forced-inclusion access, with the real catalog and
    inclusion code."""
    with user_errors():
        cfg = build_config(None, settings, FLAG_OF_PATH)
        n, rho, p_hit = cfg.market.n_platforms, cfg.market.rho, cfg.market.p_hit
        result = simulate_access(n, rho, p_hit, draws, cfg.seed)
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
@with_settings(BUILD)
def build(
    *,
    settings: dict[str, Any],
    cache_dir: Annotated[
        Path | None, typer.Option("--cache-dir", help="embedding cache (default: the user's)")
    ] = None,
    strict: Strict = False,
) -> None:
    """Build every domain's market and print domains, episodes, catalogs and access."""
    with user_errors():
        given_domains = "domains" in settings
        cfg = build_config(None, settings, FLAG_OF_PATH)
        data = data_directory(cfg.data, cache_dir or default_cache_dir())
        chosen = cfg.market
        model = load_embedder(cfg.embedder)
        names = list(cfg.domains) if given_domains else [f.name for f in find_domains(data)]
        if not names:
            raise DataError(f"{data}: no domain found")
        table = Table(
            title=f"Markets: N={chosen.n_platforms}, K={chosen.shortlist_k}, "
            f"rho={chosen.rho}, p_hit={chosen.p_hit}, "
            f"policies={chosen.composition}, seed={cfg.seed}"
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
                f"{len(index_episodes(domain, cfg.episodes)):,}",
                f"{len(reqs):,}",
                f"{min(per_profile.values())}-{max(per_profile.values())}",
                f"{sizes.min():,}-{sizes.max():,}",
                f"{access.mean_target_copies:.2f}",
                f"{access.platform_centric:.1%}",
                f"{access.user_agent:.1%}",
            )
    out.print(table)
    pc, ua = analytic_access(chosen.n_platforms, chosen.rho, chosen.p_hit)
    out.print(f"A.2 analytic forced access: platform-centric {pc:.1%}, user agent {ua:.1%}")


if __name__ == "__main__":  # pragma: no cover
    app()
