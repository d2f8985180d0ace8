"""The self-contained HTML report: figures embedded as PNG data, tables, and an episode
explorer. It needs no network to open. Every text from data or models reaches the page as
JSON inside a non-executable script element and is inserted with textContent, so a title
like ``<script>alert(1)</script>`` stays inert text."""

from __future__ import annotations

import base64
import gzip
import html
import json
import re
from pathlib import Path
from typing import Any

PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>recmarket report</title>
<style>
body { font-family: system-ui, sans-serif; margin: 2rem auto; padding: 0 1rem;
  max-width: 1100px; color: #222; }
h1, h2 { font-weight: 600; } figure { margin: 1.5rem 0; } img { max-width: 100%; }
table { border-collapse: collapse; font-size: 0.8rem; margin: 0.5rem 0; }
td, th { border: 1px solid #ccc; padding: 2px 6px; text-align: right; }
.warning { color: #a40000; }
td:first-child, th:first-child { text-align: left; }
#browser { display: flex; gap: 1rem; } #list { width: 40%; max-height: 36rem; overflow: auto; }
#list li { cursor: pointer; padding: 2px; } #list li:hover { background: #eef; }
#detail { width: 60%; max-height: 36rem; overflow: auto; }
tr.target td { background: #fff3c4; font-weight: 600; }
.outcome { font-size: 1.05rem; font-weight: 600; }
nav ol ol { font-size: 0.85rem; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; }
dl.facts dt { font-weight: 600; } dl.facts dd { margin: 0; }
figcaption { font-size: 0.85rem; }
pre { white-space: pre-wrap; font-size: 0.75rem; background: #f6f6f6; padding: 4px; }
</style></head><body>
<h1>recmarket report</h1>
__SUMMARY__
__BODY__
<section id="explorer"><h2>Episode explorer</h2>
<p>__EXPLORER_NOTE__</p>
<div><label>experiment <select id="f-experiment"></select></label>
<label>cell <select id="f-cell"></select></label>
<label>domain <select id="f-domain"></select></label>
<label>outcome <select id="f-outcome"></select></label> <span id="count"></span></div>
<p id="empty" class="warning"></p>
<div id="browser"><ol id="list"></ol><div id="detail"></div></div></section>
<script type="application/gzip+base64" id="episodes">__EPISODES__</script>
<script type="application/json" id="policy-colours">__COLOURS__</script>
<script>
__SCRIPT__
</script></body></html>
"""


def table_html(
    rows: list[dict[str, Any]], ids: list[str] | None = None, links: list[str | None] | None = None
) -> str:
    """A table of ``rows``; each row may carry an id (``ids``), and its first cell may link
    to an anchor (``links``: "#anchor" or None)."""
    if not rows:
        return ""
    head = "".join(f"<th>{html.escape(str(k))}</th>" for k in rows[0])
    body = []
    for i, row in enumerate(rows):
        cells = [html.escape(_fmt(v)) for v in row.values()]
        link = links[i] if links else None
        if link:
            cells[0] = f'<a href="{html.escape(link)}">{cells[0]}</a>'
        row_id = f' id="{html.escape(ids[i])}"' if ids else ""
        body.append(f"<tr{row_id}>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    return f"<table><tr>{head}</tr>{''.join(body)}</table>"


def _fmt(value: Any) -> str:
    return f"{value:.4f}" if isinstance(value, float) else str(value)


def figure_html(
    anchor: str, title: str, png: Path, rows: list[dict[str, Any]], caption: str, note: str
) -> str:
    """A figure under its anchor: heading, image, the paper's values beside ours
    (``caption``, HTML), a ``note`` (text) and the figure's table."""
    data = base64.b64encode(png.read_bytes()).decode()
    said = f'<p class="note">{html.escape(note)}</p>' if note else ""
    return (
        f'<figure id="{html.escape(anchor)}"><h3>{html.escape(title)}</h3>'
        f'<img alt="{html.escape(title)}" src="data:image/png;base64,{data}">'
        f"{caption}{said}{table_html(rows)}</figure>"
    )


SCRIPT = Path(__file__).with_name("explorer.js")


def _inert(data: Any) -> str:
    """JSON for a script element: "<" is escaped so no "</script>" can end it early."""
    return json.dumps(data).replace("<", "\\u003c")


def _packed(data: Any) -> str:
    """JSON gzipped and in base64 for a script element (no "<" can occur in it); the page
    unpacks it with the browser's DecompressionStream."""
    return base64.b64encode(gzip.compress(json.dumps(data).encode(), mtime=0)).decode()


def page(
    summary: str,
    body: str,
    episodes: list[dict[str, Any]],
    note: str,
    colours: dict[str, str],
) -> str:
    """The page: ``summary`` and ``body`` are HTML; the episodes go in gzipped, the
    policies' colours as inert JSON. Every placeholder is filled in one pass, so a text
    that happens to contain one is never filled in turn."""
    values = {
        "SUMMARY": summary,
        "BODY": body,
        "EXPLORER_NOTE": html.escape(note),
        "EPISODES": _packed(episodes),
        "COLOURS": _inert(colours),
        "SCRIPT": SCRIPT.read_text(encoding="utf-8"),
    }
    return re.sub(r"__([A-Z_]+)__", lambda m: values[m[1]], PAGE)
