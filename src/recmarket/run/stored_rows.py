"""What a store's episode rows must be before anything reads them.

Reports, exports and branches read a store's rows as they are, and a store is a file anyone
can edit or damage: a dropped column read as nothing written, or a flag set by hand, moves a
rate without a word. ``check_rows`` refuses, in one line naming the store, the episode and
the column, a store that lacks a column, or a row whose flags are not 0/1, whose flags
contradict each other (a target bought but not shown, a purchase with no seat), whose seat
is not one of the market's, whose label is not a label, or whose regret is not finite. The
checks run as one SQLite scan, so a store of a million episodes is checked in about a second.
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

from recmarket.config import RunConfig
from recmarket.market.build import seats
from recmarket.run.episode_rows import BOOLEANS, COLUMNS
from recmarket.sqlite_files import StoreError

LABELS = ("high", "mixed", "low")


def _quoted(values: list[str]) -> str:
    return ", ".join("'" + v.replace("'", "''") + "'" for v in values)


def _not_a_seat(column: str, ids: list[str] | None) -> str:
    """SQL true where ``column`` holds no seat id: one of ``ids``, or where the settings
    cannot be read here (a plugin this process lacks names a variant), any ``P<number>``."""
    if ids is not None:
        return f"{column} NOT IN ({_quoted(ids)})"
    return f"NOT ({column} GLOB 'P[1-9]*' AND NOT substr({column}, 2) GLOB '*[^0-9]*')"


def conditions(cfg: RunConfig | None) -> list[tuple[str, str]]:
    """(what is wrong, the SQL condition true on a row where it is) for every check; the
    seats are checked against the market's (``cfg``), or their form where it is None."""
    ids = [seat.platform_id for seat in seats(cfg.market)] if cfg is not None else None
    owner = "substr(rep_platform, 1, instr(rep_platform, '-') - 1)"
    found = [(f"{flag} is not 0 or 1", f"{flag} NOT IN (0, 1)") for flag in sorted(BOOLEANS)]
    found += [
        ("target_present disagrees with target_copies", "target_present != (target_copies > 0)"),
        (
            "target_copies is not between 0 and pool_size",
            "target_copies NOT BETWEEN 0 AND pool_size",
        ),
        ("target_best_fit without target_present", "target_best_fit > target_present"),
        (
            "target_fit_rank disagrees with target_best_fit",
            "target_fit_rank IS NOT NULL AND (target_fit_rank < 1 "
            "OR target_best_fit != (target_fit_rank = 1))",
        ),
        ("target_fit_gap negative", "target_fit_gap < 0"),
        ("target_shortlisted without target_present", "target_shortlisted > target_present"),
        ("target_top1 without target_shortlisted", "target_top1 > target_shortlisted"),
        ("target_purchased without target_shortlisted", "target_purchased > target_shortlisted"),
        ("target_purchased without any_purchase", "target_purchased > any_purchase"),
        (
            "off_target_purchase disagrees with any_purchase and target_purchased",
            "off_target_purchase != (any_purchase AND NOT target_purchased)",
        ),
        ("no_purchase with any_purchase", "no_purchase AND any_purchase"),
        (
            "any_purchase disagrees with purchased_platform",
            "any_purchase != (purchased_platform IS NOT NULL)",
        ),
        ("round or ord is negative", "round < 0 OR ord < 0"),
        (
            "top1_platform is not a seat of the market",
            f"top1_platform IS NOT NULL AND {_not_a_seat('top1_platform', ids)}",
        ),
        (
            "purchased_platform is not a seat of the market",
            f"purchased_platform IS NOT NULL AND {_not_a_seat('purchased_platform', ids)}",
        ),
        (  # a record goes to the name a seat showed: its own, or a re-entry's (P4-2)
            "rep_platform is not a seat's name",
            f"rep_platform IS NOT NULL AND {_not_a_seat('rep_platform', ids)} AND "
            f"{_not_a_seat(owner, ids)}",
        ),
        (
            "rep_label is not high, mixed or low",
            f"rep_label IS NOT NULL AND rep_label NOT IN ({_quoted(list(LABELS))})",
        ),
        (
            "regret is not a finite number",
            "regret IS NOT NULL AND (typeof(regret) NOT IN ('real', 'integer') "
            "OR abs(regret) > 1.7e308)",
        ),
    ]
    return found


# The columns each store schema added (run.manifest's history): a store of an earlier
# schema is read without them, and must hold every other.
ADDED_IN_SCHEMA = {
    3: ("top1_platform", "regret", "lessons"),
    4: ("purchased_platform", "identities", "shown_platforms", "written"),
    7: ("target_policies", "top1_item"),
    9: ("target_fit_rank", "target_fit_gap", "target_top1_grid"),
    10: ("top1_rewritten", "bought_rewritten", "words_unsupported"),
}


def check_rows(
    db: sqlite3.Connection,
    path: Path,
    cfg: RunConfig | None,
    schema: int,
    renamed: dict[str, str],
) -> None:
    """Refuse a store whose episodes table lacks a column its ``schema`` has (under its name
    now or an older one, ``renamed``) or holds a row that fails a check (``conditions``, those
    on the columns it has), naming the store, the first such episode and what is wrong."""
    stored = {renamed.get(row[1], row[1]) for row in db.execute("PRAGMA table_info(episodes)")}
    later = {c for version, added in ADDED_IN_SCHEMA.items() if version > schema for c in added}
    missing = [c for c in COLUMNS if c not in stored and c not in later]
    if missing:
        raise StoreError(
            f"{path}: the episodes table lacks {', '.join(missing)} (damaged or edited); it "
            "is not read"
        )
    checks = [
        (what, sql)
        for what, sql in conditions(cfg)
        if all(c in stored for c in COLUMNS if re.search(rf"\b{c}\b", sql))
    ]
    flags = ", ".join(f"({sql})" for _, sql in checks)
    where = " OR ".join(f"({sql})" for _, sql in checks)
    row = db.execute(f"SELECT domain, ord, {flags} FROM episodes WHERE {where} LIMIT 1").fetchone()
    if row is None:
        return
    domain, order, *failed = row
    what = next(text for (text, _), bad in zip(checks, failed, strict=True) if bad)
    raise StoreError(f"{path}: episode {domain}:{order}: {what}; the store is not read")
