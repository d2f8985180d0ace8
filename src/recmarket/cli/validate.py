"""``recmarket validate``: the simulated user against real people (validity/)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from recmarket.cli.app import DataDir, app, fail, out, user_errors
from recmarket.cli.llm_options import Budget, Replay
from recmarket.cli.run import estimate_table
from recmarket.config import RunConfig
from recmarket.data import BUNDLED_DATA_DIR
from recmarket.validity.heldout import HALVES

MAX_NEGATIVES = 99  # 1 of 100: the largest protocol the field reports (sampled SASRec's 1 of 101)


@app.command("validate")
def validate_command(
    out_dir: Annotated[Path, typer.Option("--out", help="where validity.csv and .md go")],
    data: DataDir = BUNDLED_DATA_DIR,
    domain: Annotated[
        list[str] | None, typer.Option("--domain", help="these domains (default: all of --data)")
    ] = None,
    negatives: Annotated[
        str,
        typer.Option(
            "--negatives",
            help="untouched items per held-out, one protocol each: 9 (1 of 10), 9,19 (and 1 of 20)",
        ),
    ] = "9",
    pairs: Annotated[
        int | None,
        typer.Option(
            "--pairs",
            min=1,
            help="negatives the held-out meets one at a time for the 1:1 measures, one call "
            "each (default: every negative of the smallest --negatives)",
        ),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", min=0, help="the negatives' and roles' seed")] = 42,
    half: Annotated[
        str,
        typer.Option(
            "--half", help="all people, or one fixed half: fit a parameter on one, report the other"
        ),
    ] = "all",
    config: Annotated[
        Path | None,
        typer.Option(
            "--config",
            help="TOML or YAML settings whose [agents], [roles], [llm] and [embedder] play",
        ),
    ] = None,
    replay: Replay = False,
    budget: Budget = None,
    estimate: Annotated[
        bool,
        typer.Option(
            "--estimate",
            help="print the calls, tokens and cost each role would take, and call nothing",
        ),
    ] = False,
) -> None:
    """Hold out each person's latest review, judge it against items they never touched, and
    write the validity card: the user's roles beside chance and a ladder of baselines
    (popularity, centroids, BM25, co-occurrence, and SASRec with the sequential extra), with
    95% intervals over people."""
    import asyncio

    from recmarket.config_file import build_config
    from recmarket.validity.card import ALL, COLUMNS
    from recmarket.validity.validate import SKIPPED_CSV, skipped_summary, validate_settings

    if half not in HALVES:
        fail(f"--half {half}: choose one of {', '.join(HALVES)}")
    counts = _counts(negatives)
    if pairs is not None and pairs > counts[0]:
        fail(f"--pairs {pairs}: at most {counts[0]}, the fewest negatives --negatives draws")
    with user_errors():
        settings = build_config(config, {}, {})
        if estimate:
            _print_estimate(settings, data, domain or [], counts, pairs, seed, half)
            return
        rows = asyncio.run(
            validate_settings(
                settings,
                data,
                domain or [],
                out_dir,
                replay=replay,
                budget=budget,
                negatives=counts,
                pairs=pairs,
                seed=seed,
                half=half,
            )
        )
    first = min(r.candidates for r in rows if r.candidates)
    shown = [r for r in rows if r.domain == ALL and r.candidates in (0, first)]
    shown = [r for r in shown if r.pool in ("", "random")]
    table = Table(
        title=f"Validity card, every category, 1 of {first} random negatives "
        f"(all {len(rows):,} rows: {out_dir / 'validity.csv'})"
    )
    for column in ("measure", "protocol", "scorer", "people", "value", "95% interval", "note"):
        table.add_column(column)
    for r in shown:
        c = dict(zip(COLUMNS, r.cells(), strict=True))
        interval = f"[{c['low']}, {c['high']}]" if c["low"] else ""
        table.add_row(
            c["measure"], c["protocol"], c["scorer"], c["n_people"], c["value"], interval, c["note"]
        )
    out.print(table)
    skipped = skipped_summary(out_dir / SKIPPED_CSV)
    out.print(f"Left out: {skipped} ({out_dir / SKIPPED_CSV})")


def _counts(negatives: str) -> tuple[int, ...]:
    """``--negatives``'s counts, each a whole number from 1 to MAX_NEGATIVES."""
    try:
        counts = tuple(sorted({int(part) for part in negatives.split(",")}))
    except ValueError:
        fail(f"--negatives {negatives}: give whole numbers separated by commas, such as 9,19")
    if not counts or not all(1 <= n <= MAX_NEGATIVES for n in counts):
        fail(f"--negatives {negatives}: each count must be from 1 to {MAX_NEGATIVES}")
    return counts


def _print_estimate(
    settings: RunConfig,
    data: Path,
    domains: list[str],
    negatives: tuple[int, ...],
    pairs: int | None,
    seed: int,
    half: str,
) -> None:
    from recmarket.run.estimate import price_sources
    from recmarket.validity.estimate import SAMPLE, estimate_validation

    held, estimates = estimate_validation(
        settings, data, domains, negatives=negatives, pairs=pairs, seed=seed, half=half
    )
    title = (
        f"Estimate for validate: {held:,} held-outs, from the first {SAMPLE} of each domain "
        "scored offline (prompt tokens ~ characters / 4)"
    )
    out.print(estimate_table(title, estimates))
    for source in price_sources(settings):
        out.print(f"prices of {source}")
