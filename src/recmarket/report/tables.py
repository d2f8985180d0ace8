"""The report's files: its tables, as CSV for programs and Markdown for reading, each
replaced whole, and the error that says a report could not be written whole."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

from recmarket.files import replaced, write_text_whole


class ReportIncomplete(OSError):
    """A report file could not be written: the message names it and says that the report
    is incomplete (each file in it is whole, the earlier one or the new one)."""


def write_table(rows: list[dict[str, Any]], stem: Path) -> None:
    """The rows as CSV and as a Markdown table, each file replaced whole."""
    if not rows:
        return
    with replaced(stem.with_suffix(".csv")) as temporary, temporary.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    lines = ["| " + " | ".join(rows[0]) + " |", "|" + "---|" * len(rows[0])]
    lines += [
        "| " + " | ".join(f"{v:.4f}" if isinstance(v, float) else str(v) for v in r.values()) + " |"
        for r in rows
    ]
    write_text_whole(stem.with_suffix(".md"), "\n".join(lines) + "\n")
