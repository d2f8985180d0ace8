"""``recmarket show`` (one episode, role by role) and ``recmarket export`` (episodes as a
table)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Table
from rich.text import Text

from recmarket.agents.llm.attempts import Attempt, input_digest, read_attempts
from recmarket.analysis.story import episode_story
from recmarket.cli.app import app, fail, out, user_errors
from recmarket.files import replaced
from recmarket.run.replay import calls_of
from recmarket.run.store import RunStore

if TYPE_CHECKING:  # export builds the frame; --help and show never load pandas
    import pandas as pd


# What a terminal would act on rather than print: escape sequences (CSI, OSC, and two-byte
# ones), the other C0 controls but tab and newline, DEL and the C1 controls. Data and model
# replies are text from outside; a title holding "\x1b]0;...\x07" or "\x1b[2J" must not
# retitle or clear the reader's terminal.
_TERMINAL_CONTROL = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI: colours, cursor moves, clearing
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC: window titles, hyperlinks
    r"|\x1b[@-_]?"  # any other escape
    r"|[\x00-\x08\x0b-\x1f\x7f-\x9f]"
)


def printable(value: Any) -> Any:
    """A value read from a store with every terminal control taken out of its texts, in
    lists and dicts too (what ``show`` prints)."""
    if isinstance(value, str):
        return _TERMINAL_CONTROL.sub("", value)
    if isinstance(value, dict):
        return {k: printable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [printable(v) for v in value]
    return value


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
        out.print(printable(f"attempt {a.attempt + 1} ({verdict}):"), style="bold")
        out.print(printable(a.reply) if a.reply else "(empty reply)", highlight=False)
        if a.reask:
            out.print(f"re-asked: {printable(a.reask)}", style="yellow", highlight=False)


@app.command("show")
def show(
    run_dir: Annotated[Path, typer.Argument(help="a run directory")],
    episode: Annotated[
        str | None,
        typer.Option(
            "--episode", help="episode id (DOMAIN/USER) or DOMAIN:ORDER; default: the first"
        ),
    ] = None,
    raw: Annotated[
        bool,
        typer.Option(
            "--json",
            help="print the episode row and every role call's input and output as one JSON "
            "document instead of the story",
        ),
    ] = False,
) -> None:
    """One episode as a story in the market's order: the outcome first, then the need, the
    pool (each platform's policy and claim, the target marked), the shortlist, the decision,
    the review and the record written; for a failed or repaired LLM call, every attempt
    (what the model wrote, why it was refused, what it was told)."""
    with user_errors(), RunStore.read(run_dir) as store:
        row = _find_episode(store, episode)
        calls = calls_of(store, row["domain"], [row["ord"]])[row["ord"]]
        keys = [(call.role, input_digest(call.input)) for call in calls]
        attempts = {key: read_attempts(store.db, key).get(key, []) for key in keys}
    if raw:
        document = {
            "episode": row,
            "calls": [{"role": c.role, "input": c.input, "output": c.output} for c in calls],
        }
        typer.echo(json.dumps(document, indent=1, default=str))
        return
    _print_story(printable(row), printable(episode_story(row, calls)))
    for call, key in zip(calls, keys, strict=True):
        tried = attempts[key]
        if call.output is None or len(tried) > 1:  # failed or repaired: what the model wrote
            out.rule(f"{call.seq + 1}. {call.role}: the model's attempts", style="cyan")
            _print_attempts(tried)
    out.print(
        f"every role call's input and output: recmarket show {run_dir} --episode "
        f"{row['domain']}:{row['ord']} --json",
        style="dim",
        highlight=False,
    )


def _print_story(row: dict[str, Any], story: dict[str, Any]) -> None:
    def line(label: str, text: str) -> None:
        out.print(Text.assemble((f"{label}: ", "bold"), text))

    out.rule(
        f"{row['episode_id']}  ({row['condition']}, {row['profile']}, "
        f"user {row['sim_user']}, round {row['round']})"
    )
    line("Outcome", story["headline"])
    line("Target", story["target"] or "(not recorded)")
    line("Request", story["request"])
    need = story["need"]
    if need:
        now, later = need.get("current_need", ""), need.get("long_term_need", "")
        line("Need", f"{now} (long-term: {later})")
    pool = Table(
        title="Pool: one candidate a platform (* the target; rank: on the shortlist)",
        title_justify="left",
    )
    for column in ("", "platform", "policy", "rank", "records", "candidate", "claim"):
        pool.add_column(column, overflow="fold")
    for p in story["pool"]:
        pool.add_row(
            "*" if p["target"] else "",
            p["platform"] + (" (bought)" if p["bought"] else ""),
            p["policy"],
            str(p["rank"] or ""),
            str(p["records"]),
            p["title"],
            p["claim"],
        )
    out.print(pool)
    for seat, name in json.loads(row.get("identities") or "{}").items():
        out.print(f"{seat} appears as {name}: it re-entered the market under a new name")
    for item in story["shortlist"]:
        line(f"Shortlist {item['rank']}", f"{item['platform']}: {item['reason']}")
    decision = story["decision"]
    if decision:
        line("Decision", f"{decision.get('option_id') or 'none'}: {decision.get('reason', '')}")
    if story["review"]:
        line("Review", story["review"])
    record = story["record"]
    if record:
        line(
            "Record written",
            f"{record['platform']}: {record.get('claim_reliability', '')}, "
            f"{record.get('note', '')}",
        )
    for name, label, note, source in json.loads(row.get("written") or "[]"):
        who = "a fake user" if source == "forged" else "the oracle"
        out.print(f"after this episode {who} wrote a {label} record for {name}: {note}")
    if story["failed_role"]:
        out.print(f"{story['failed_role']} failed, which ended the episode", style="red")


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
        with replaced(path) as temporary:  # whole or not at all; a failure names the file
            if fmt == "parquet":
                frame.to_parquet(temporary, index=False)  # values exactly as stored
            else:
                csv_safe(frame).to_csv(temporary, index=False)
    out.print(f"{len(frame):,} {what} -> {path}")
