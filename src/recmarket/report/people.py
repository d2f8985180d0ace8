"""The report's section on real people: for each real data directory that cells played on,
the validity card (``recmarket validate``) of the user model that played them, beside the
models' audit cards. The audit card says whether a model follows instructions; this card
says whether the simulated user ranks, buys and rates like the people in the data, which
a statement about what people would do rests on, and a market contrast does not."""

from __future__ import annotations

import html
import math
from pathlib import Path
from typing import Any

from recmarket.data.sources import demo_users
from recmarket.report.cards import validity_cards
from recmarket.report.data import Cell
from recmarket.report.html import table_html
from recmarket.validity.card import ALL, USER_ROLES, CardRow
from recmarket.validity.kept import KeptCard, read_kept_for

NOTE = (
    "Each person's latest review held out against items of the same category they never "
    "touched (drawn at random, and of the held-out's own kind); 95% percentile-bootstrap "
    "intervals resampling people. The user's roles (ranker, decision, review) stand beside "
    "chance and a ladder of baselines (popularity, the history-title centroid and its "
    "recency-weighted form, BM25, co-occurrence, the person's mean rating, always 5). "
    "Market contrasts rest on "
    "the user model being fixed across cells, not on this card; a statement about what "
    "these people would buy or rate rests on it (docs/people.md)."
)


def _shown(x: float) -> str:
    return "" if math.isnan(x) else f"{x:.3f}"


def card_table(rows: list[CardRow]) -> list[dict[str, Any]]:
    """A card's rows over every category together as the report's table shows them, the
    user's roles first (the card's files hold each category's)."""
    ordered = sorted((r for r in rows if r.domain == ALL), key=lambda r: r.scorer not in USER_ROLES)
    return [
        {
            "measure": r.measure,
            "protocol": r.protocol,
            "candidates": f"1 of {r.candidates}, {r.pool}" if r.candidates else "",
            "scorer": r.scorer,
            "people": r.n_people,
            "value": _shown(r.value),
            "95% interval": "" if math.isnan(r.low) else f"[{_shown(r.low)}, {_shown(r.high)}]",
            "chance": _shown(r.chance),
            "note": r.note,
        }
        for r in ordered
    ]


def _study_cards(cell: Cell) -> list[tuple[KeptCard, list[CardRow]]]:
    """The validity cards the cell's study keeps (``report.cards``) made on the bytes its
    runs recorded reading."""
    if cell.study is None:
        return []
    files = {name: digest for made in cell.made for name, digest in made.data}
    return read_kept_for(cell.config, files, validity_cards(cell.study))


def people_section(cells: dict[str, dict[str, Cell]]) -> str:
    """The section's HTML, or "" where no cell played real data. Each card is read from
    the cells' own study (``report.cards``), so the report reads its directories alone."""
    played: dict[tuple[str, str], list[str]] = {}
    first: dict[tuple[str, str], Cell] = {}
    for experiment, members in cells.items():
        for name, cell in members.items():
            data = cell.config.data
            if data is None or demo_users(data) is not None:
                continue  # the bundled or generated demo: no people to be like
            key = (str(data), cell.config.agents.model_dump_json())
            played.setdefault(key, []).append(f"{experiment}/{name}")
            first.setdefault(key, cell)
    if not played:
        return ""
    parts = [f"<p>{html.escape(NOTE)}</p>"]
    for key, names in played.items():
        data = Path(key[0])
        parts.append(
            f"<h3>{html.escape(str(data))}: the user model of {len(names)} cell(s)</h3>"
            f"<p>{html.escape(', '.join(names[:8]))}{' ...' if len(names) > 8 else ''}</p>"
        )
        kept = _study_cards(first[key])
        if not kept:
            parts.append(
                "<p><strong>Not validated</strong>: run <code>recmarket validate --data "
                f"{html.escape(str(data))} --config FILE --out DIR</code> with these cells' "
                "settings, then <code>recmarket cards STUDY</code>, before reading their "
                "results as statements about people (a card made on other bytes of these "
                "files does not count).</p>"
            )
            continue
        for about, rows in kept:
            parts.append(
                f"<p>{html.escape(about.made.strip('_'))} (people: {html.escape(about.half)})</p>"
                + table_html(card_table(rows))
            )
    return "\n".join(parts)
