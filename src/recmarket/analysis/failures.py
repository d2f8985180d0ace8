"""Why episodes failed, read from the run's store: which roles, and what the model wrote
that the contracts refused. A run that mostly failed should say so, and say what to try,
rather than print a funnel of zeros."""

from __future__ import annotations

import sqlite3
from collections import Counter
from typing import Any

from recmarket.agents.llm.attempts import common_errors

WARN_ABOVE = 0.10  # share of failed episodes that a run summary warns about
ADVICE = (
    'try structured outputs (structured = "auto", "json_schema" or "json_object" under '
    "[llm.models.NAME]; auto falls back to off where the endpoint honours neither), more "
    "re-asks (repair_attempts under [llm]), a larger max_tokens if replies are cut short, or "
    "a larger model; `recmarket show RUN_DIR --episode ID` prints every attempt"
)


def failure_warning(rows: list[dict[str, Any]], store: sqlite3.Connection) -> str | None:
    """A warning when more than WARN_ABOVE of the episodes failed: the roles that failed,
    the most common validation errors and what to try; None otherwise."""
    failed = Counter(r["failed_role"] for r in rows if r["failed_role"])
    total = sum(failed.values())
    if not rows or total <= WARN_ABOVE * len(rows):
        return None
    roles = ", ".join(f"{role} {count}" for role, count in failed.most_common())
    errors = common_errors(store)
    lines = [f"{total} of {len(rows)} episodes ({total / len(rows):.0%}) failed: {roles}."]
    if errors:
        lines.append("Most common validation errors (of every attempt):")
        lines += [f"  {count} x {kind}" for kind, count in errors]
    lines.append(ADVICE[0].upper() + ADVICE[1:] + ".")
    return "\n".join(lines)
