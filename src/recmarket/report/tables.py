"""The report's files: its tables, as CSV for programs and Markdown for reading, each
replaced whole, and the error that says a report could not be written whole."""

from __future__ import annotations

import csv
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from recmarket.files import replaced, write_text_whole


class ReportIncomplete(OSError):
    """A report file could not be written: the message names it and says that the report
    is incomplete (each file in it is whole, the earlier one or the new one)."""


def write_csv_whole(rows: Sequence[Mapping[str, Any]], path: Path, columns: Sequence[str]) -> None:
    """The rows as CSV under ``columns``, the file replaced whole."""
    with replaced(path) as temporary, temporary.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(columns))
        writer.writeheader()
        writer.writerows(rows)


def write_table(rows: list[dict[str, Any]], stem: Path) -> None:
    """The rows as CSV and as a Markdown table, each file replaced whole."""
    if not rows:
        return
    write_csv_whole(rows, stem.with_suffix(".csv"), list(rows[0]))
    lines = ["| " + " | ".join(rows[0]) + " |", "|" + "---|" * len(rows[0])]
    lines += [
        "| " + " | ".join(f"{v:.4f}" if isinstance(v, float) else str(v) for v in r.values()) + " |"
        for r in rows
    ]
    write_text_whole(stem.with_suffix(".md"), "\n".join(lines) + "\n")
