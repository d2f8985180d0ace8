"""The self-contained HTML report: figures embedded as PNG data, tables, and an episode
explorer. It needs no network to open. Every text from data or models reaches the page as
JSON inside a non-executable script element and is inserted with textContent, so a title
like ``<script>alert(1)</script>`` stays inert text."""

from __future__ import annotations

import base64
import html
import json
from pathlib import Path
from typing import Any

PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>recmarket report</title>
<style>
body { font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 1100px; color: #222; }
h1, h2 { font-weight: 600; } figure { margin: 1.5rem 0; } img { max-width: 100%; }
table { border-collapse: collapse; font-size: 0.8rem; margin: 0.5rem 0; }
td, th { border: 1px solid #ccc; padding: 2px 6px; text-align: right; }
.warning { color: #a40000; }
td:first-child, th:first-child { text-align: left; }
#explorer { display: flex; gap: 1rem; } #list { width: 40%; max-height: 36rem; overflow: auto; }
#list li { cursor: pointer; padding: 2px; } #list li:hover { background: #eef; }
#detail { width: 60%; max-height: 36rem; overflow: auto; }
pre { white-space: pre-wrap; font-size: 0.75rem; background: #f6f6f6; padding: 4px; }
</style></head><body>
<h1>recmarket report</h1>
<p>__SUMMARY__</p>
__BODY__
<h2>Episode explorer</h2>
<p>__EXPLORER_NOTE__</p>
<div><label>experiment <select id="f-experiment"></select></label>
<label>cell <select id="f-cell"></select></label>
<label>domain <select id="f-domain"></select></label>
<label>outcome <select id="f-outcome"></select></label> <span id="count"></span></div>
<div id="explorer"><ol id="list"></ol><div id="detail"></div></div>
<script type="application/json" id="episodes">__EPISODES__</script>
<script>
"use strict";
const episodes = JSON.parse(document.getElementById("episodes").textContent);
const keys = ["experiment", "cell", "domain", "outcome"];
const wanted = Object.fromEntries(new URLSearchParams(location.hash.slice(1)));
function fill(key) {
  const select = document.getElementById("f-" + key);
  const values = [...new Set(episodes.flatMap(e => key === "experiment" || key === "cell"
    ? e.uses.map(u => u[key]) : [e[key]]))].sort();
  for (const value of ["(all)", ...values]) {
    const option = document.createElement("option");
    option.value = option.textContent = value;
    select.appendChild(option);
  }
  if (wanted[key] && values.includes(wanted[key])) select.value = wanted[key];
  select.addEventListener("change", render);
}
function chosen(key) {
  const v = document.getElementById("f-" + key).value;
  return v === "(all)" ? null : v;
}
function matches(e) {
  const x = chosen("experiment"), c = chosen("cell");
  if (!e.uses.some(u => (!x || u.experiment === x) && (!c || u.cell === c))) return false;
  return (!chosen("domain") || e.domain === chosen("domain"))
      && (!chosen("outcome") || e.outcome === chosen("outcome"));
}
function show(e) {
  const detail = document.getElementById("detail");
  detail.replaceChildren();
  const head = document.createElement("h3");
  head.textContent = e.episode_id + " (" + e.condition + ", " + e.outcome + ")";
  detail.appendChild(head);
  e.calls.forEach((call, i) => {
    const title = document.createElement("h4");
    title.textContent = (i + 1) + ". " + call.role;
    const input = document.createElement("pre");
    input.textContent = "input: " + JSON.stringify(call.input, null, 2);
    const output = document.createElement("pre");
    output.textContent = "output: " + JSON.stringify(call.output, null, 2);
    detail.append(title, input, output);
  });
}
function render() {
  const list = document.getElementById("list");
  list.replaceChildren();
  const shown = episodes.filter(matches);
  for (const e of shown) {
    const item = document.createElement("li");
    item.className = "episode";
    item.textContent = e.domain + " · " + e.title + " · " + e.outcome;
    item.addEventListener("click", () => show(e));
    list.appendChild(item);
  }
  document.getElementById("count").textContent = shown.length + " episodes";
  document.body.dataset.listed = String(shown.length);
}
keys.forEach(fill);
render();
if (wanted.open) {  // deep link: open the n-th listed episode (1-based)
  const pick = episodes.filter(matches)[Number(wanted.open) - 1];
  if (pick) show(pick);
}
</script></body></html>
"""


def table_html(rows: list[dict[str, Any]]) -> str:
    if not rows:
        return ""
    head = "".join(f"<th>{html.escape(str(k))}</th>" for k in rows[0])
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(_fmt(v))}</td>" for v in r.values()) + "</tr>"
        for r in rows
    )
    return f"<table><tr>{head}</tr>{body}</table>"


def _fmt(value: Any) -> str:
    return f"{value:.4f}" if isinstance(value, float) else str(value)


def figure_html(title: str, png: Path, rows: list[dict[str, Any]]) -> str:
    data = base64.b64encode(png.read_bytes()).decode()
    return (
        f"<figure><h2>{html.escape(title)}</h2>"
        f'<img alt="{html.escape(title)}" src="data:image/png;base64,{data}">'
        f"{table_html(rows)}</figure>"
    )


def page(summary: str, body: str, episodes: list[dict[str, Any]], note: str) -> str:
    # JSON in a script element: "<" is escaped so no "</script>" can end it early.
    payload = json.dumps(episodes).replace("<", "\\u003c")
    return (
        PAGE.replace("__SUMMARY__", html.escape(summary))
        .replace("__EXPLORER_NOTE__", html.escape(note))
        .replace("__BODY__", body)
        .replace("__EPISODES__", payload)
    )
