"""``recmarket llm audit``: the model audit, printed as a card per model and stored beside
the model's settings (where ``report`` finds it)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from recmarket.agents.llm.audit.card import AuditCard, default_audits
from recmarket.cli.app import llm_app, out, user_errors
from recmarket.cli.llm_options import Backend, LlmBaseUrl, LlmKeyEnv, LlmModel, configured_llm
from recmarket.cli.options import ConfigPath
from recmarket.data import BUNDLED_DATA_DIR
from recmarket.data.domain import domain_files, load_domain


@llm_app.command("audit")
def audit(
    config: ConfigPath = None,
    backend: Backend = None,
    llm_model: LlmModel = None,
    llm_base_url: LlmBaseUrl = None,
    llm_api_key_env: LlmKeyEnv = None,
    trials: Annotated[int, typer.Option("--trials", min=1, help="trials per probe")] = 6,
    seed: Annotated[int, typer.Option("--seed", help="seed of the probes' draws")] = 0,
    domain: Annotated[
        str, typer.Option("--domain", help="the bundled domain whose listings the probes use")
    ] = "Video_Games",
    out_dir: Annotated[
        Path | None,
        typer.Option("--out", help="where cards are stored (default: the cache's audits/)"),
    ] = None,
) -> None:
    """Controlled probes with a known right answer for each role a model plays (dominance,
    position, records, injection, label faithfulness, faithful copy, format), with pass
    rates and 95% intervals: whether the model's market results can mean anything."""
    with user_errors():
        llm = configured_llm(config, backend, llm_model, llm_base_url, llm_api_key_env, "audit")
        items = load_domain(domain_files(BUNDLED_DATA_DIR, domain)).items
        from recmarket.agents.llm.audit.probes import Material
        from recmarket.agents.llm.audit.runner import audit_model  # the client: openai

        material = Material(domain, items, seed)
        audits = out_dir or default_audits()
        cards = [
            asyncio.run(audit_model(llm, name, material, trials, audits)) for name in llm.used()
        ]
    for card in cards:
        print_card(card)
    out.print(f"cards stored under {audits}")


def print_card(card: AuditCard) -> None:
    """The audit card in the terminal: each probe's pass rate, interval and verdict."""
    model = card.model
    title = (
        f"Audit of {model['name']} at {model['base_url']} ({card.trials} trials a probe, "
        f"seed {card.seed}, {card.domain})"
    )
    if not card.results:
        out.print(f"{title}: no probe for the roles it plays ({', '.join(card.roles)})")
        return
    table = Table(title=title, caption="95% Wilson intervals; fails: the interval is below 80%")
    for column in ("probe", "role", "passed", "rate", "95% interval", "by chance", "verdict"):
        table.add_column(
            column, justify="left" if column in ("probe", "role", "verdict") else "right"
        )
    for r in card.results:
        low, high = r.interval
        table.add_row(
            r.probe,
            r.role,
            f"{r.passes}/{r.trials}",
            f"{r.rate:.0%}",
            f"{low:.0%}-{high:.0%}",
            f"{r.chance:.0%}" if r.chance else "-",
            r.verdict,
            style="red" if r.fails else None,
        )
    out.print(table)
    for r in card.failed():
        out.print(f"warning: {model['name']} fails {r.probe}; resting on it: {r.depends}")
