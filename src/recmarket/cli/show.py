"""``recmarket show`` (one episode, role by role) and ``recmarket export`` (episodes as a
table)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape

from recmarket.agents.llm.attempts import Attempt, input_digest, read_attempts
from recmarket.cli.app import app, fail, out, user_errors
from recmarket.run.store import RunStore

if TYPE_CHECKING:  # export builds the frame; --help and show never load pandas
    import pandas as pd


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


def _print_attempts(tried: list[Attempt]) -> None:
    if not tried:
        out.print("attempts: none stored (a run made before attempts were kept)", style="dim")
    for a in tried:
        verdict = "used" if a.error is None else f"refused: {a.error}"
        out.print(f"attempt {a.attempt + 1} ({verdict}):", style="bold")
        out.print(escape(a.reply) if a.reply else "(empty reply)", highlight=False)
        if a.reask:
            out.print(f"re-asked: {escape(a.reask)}", style="yellow", highlight=False)


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
    """One episode as the market saw it: every role's input and output, in order; for a
    failed or repaired LLM call, every attempt (what the model wrote, why it was refused,
    what it was told)."""
    with user_errors(), RunStore.read(run_dir) as store:
        row = _find_episode(store, episode)
        calls = list(store.calls(row["domain"], row["ord"]))
        keys = [(call.role, input_digest(call.input)) for call in calls]
        attempts = {key: read_attempts(store.db, key).get(key, []) for key in keys}
    out.rule(
        f"{row['episode_id']}  ({row['condition']}, {row['profile']}, "
        f"user {row['sim_user']}, round {row['round']})"
    )
    for seat, name in json.loads(row.get("identities") or "{}").items():
        out.print(f"{seat} appears as {name}: it re-entered the market under a new name")
    for name, label, note, source in json.loads(row.get("written") or "[]"):
        who = "a fake user" if source == "forged" else "the oracle"
        out.print(f"after this episode {who} wrote a {label} record for {name}: {note}")
    for call in calls:
        out.rule(f"{call.seq + 1}. {call.role}", style="cyan")
        out.print("input:", style="bold")
        out.print_json(data=call.input)
        tried = attempts[(call.role, input_digest(call.input))]
        if call.output is None or len(tried) > 1:  # failed or repaired: what the model wrote
            _print_attempts(tried)
        out.print("output:", style="bold")
        if call.output is None:
            out.print(f"none: {row['failed_role']} failed, which ended the episode", style="red")
        else:
            out.print_json(data=call.output)
    out.rule("metrics")
    out.print_json(data={k: v for k, v in row.items() if k not in ("domain", "ord")})


FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")


def csv_safe(frame: pd.DataFrame) -> pd.DataFrame:
    """Text cells that a spreadsheet would run as a formula get a leading apostrophe
    (OWASP's advice for CSV injection); numbers and other text are written as they are."""
    out = frame.copy()
    for column in out.select_dtypes(include=["object", "string"]).columns:
        out[column] = out[column].map(
            lambda v: "'" + v if isinstance(v, str) and v.startswith(FORMULA_PREFIXES) else v
        )
    return out


@app.command("export")
def export(
    run_dirs: Annotated[list[Path], typer.Argument(help="one or more run directories")],
    fmt: Annotated[str, typer.Option("--format", help="parquet or csv")] = "parquet",
    target: Annotated[Path | None, typer.Option("--out", help="output file")] = None,
    calls: Annotated[
        bool,
        typer.Option(
            "--calls", help="write every role call (input and output JSON) instead of episodes"
        ),
    ] = False,
) -> None:
    """Write every episode of the runs, with their settings (or, with --calls, every role
    call), as Parquet or CSV."""
    from recmarket.analysis.frame import calls_frame, episodes_frame

    if fmt not in ("parquet", "csv"):
        fail(f"--format: {fmt!r} is not parquet or csv")
    what = "calls" if calls else "episodes"
    with user_errors():
        frame = (calls_frame if calls else episodes_frame)(run_dirs)
        path = target or run_dirs[0] / f"{what}.{fmt}"
        if fmt == "parquet":
            frame.to_parquet(path, index=False)  # values exactly as stored
        else:
            csv_safe(frame).to_csv(path, index=False)
    out.print(f"{len(frame):,} {what} -> {path}")
