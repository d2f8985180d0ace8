"""``recmarket data``: list local domains, fetch official files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.progress import BarColumn, DownloadColumn, Progress, TransferSpeedColumn
from rich.table import Table

from recmarket.cli.app import DataDir, Strict, data_app, err, out, user_errors
from recmarket.config import EpisodeConfig
from recmarket.data import BUNDLED_DATA_DIR
from recmarket.data.domain import find_domains, load_domain
from recmarket.data.episodes import index_episodes, repeated_targets
from recmarket.data.fetch import OFFICIAL_BASE_URL, fetch_category
from recmarket.data.raw import DataError


@data_app.command("list")
def data_list(
    data: DataDir = BUNDLED_DATA_DIR,
    strict: Strict = False,
    as_json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Local domains with item, user and eligible-episode counts, and how many eligible
    episodes' targets the person reviewed before (those reviews leave the history)."""
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
            index = index_episodes(domain, EpisodeConfig())
            rows.append(
                {
                    "domain": files.name,
                    "items": len(domain.items),
                    # titled from their other fields (data/items.py: Item.shown_title)
                    "untitled_items": sum(item.untitled for item in domain.items),
                    "users": domain.n_users,
                    "eligible_episodes": len(index),
                    # whose target the person reviewed before: taken out of the history
                    "targets_reviewed_before": repeated_targets(domain, index),
                    "reviews": domain.report.reviews_read,
                    "reviews_without_meta": domain.report.reviews_without_meta,
                    "lines_skipped": domain.report.lines_skipped,
                }
            )
            report_skips(files.name, domain.report.examples, domain.report.lines_skipped)
    if as_json:
        print(json.dumps(rows))
        return
    table = Table(title=f"Domains in {data}")
    for col in rows[0]:
        table.add_column(col.replace("_", " "), justify="left" if col == "domain" else "right")
    for row in rows:
        table.add_row(*(f"{v:,}" if isinstance(v, int) else str(v) for v in row.values()))
    out.print(table)


def report_skips(name: str, examples: list[str], skipped: int) -> None:
    """Say how many lines of a file were skipped, with the first few verbatim."""
    if skipped:
        err.print(f"{name}: skipped {skipped} unusable lines, first ones:", style="yellow")
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


@data_app.command("real-slice")
def data_real_slice(
    samples: Annotated[
        Path, typer.Argument(help="the shared real samples (../shared/data/amazon23)")
    ],
    dest: Annotated[Path, typer.Option("--dest", help="where to write the domains")] = Path(
        "real-slice"
    ),
) -> None:
    """Re-shape the real bitrecs samples into official-format domains (Office_Products,
    Amazon_Fashion), so that any command runs on them with --data."""
    from recmarket.data.samples import BITRECS_SLICES, real_slice

    with user_errors():
        missing = [p for p in BITRECS_SLICES.values() if not (samples / p).is_file()]
        if missing:
            raise DataError(f"{samples}: no {missing[0]} (expected the shared real samples)")
        names = real_slice(samples, dest)
    out.print(f"{', '.join(names)} -> {dest} (use --data {dest})")
