"""``recmarket cards``: put the validity and audit cards of a study's cells beside its runs,
where its report reads them (``report.cards``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from recmarket.cli.app import app, out, user_errors


@app.command("cards")
def cards(
    studies: Annotated[list[Path], typer.Argument(help="reproduce or run output directories")],
    validity: Annotated[
        Path | None,
        typer.Option("--cards", help="where validate kept its cards (default: the cache's)"),
    ] = None,
    audits: Annotated[
        Path | None,
        typer.Option("--audits", help="where llm audit kept its cards (default: the cache's)"),
    ] = None,
) -> None:
    """Copy the kept validity cards of the user models that played real data and the audit
    cards of the models that answered roles into each study's cards/ folder, where
    ``recmarket report`` reads them (reproduce does this when it plays; run this after a
    card is made later)."""
    from recmarket.study.cards import gather_cards

    with user_errors():
        for study in studies:
            copied = gather_cards(study, cards=validity, audits=audits)
            out.print(f"{study}: {copied} card(s) beside its runs")
