"""The report's first screen: what ran, what it found, and what this run cannot show.

Every caution is derived from the run itself (its scale, seeds, data, backend, and the
records its reputation histories reached), so a full-scale LLM run on real data says less
than a small offline one on the demo, and nothing here is fixed text about the paper.
"""

from __future__ import annotations

import html
import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from statistics import median
from typing import Any

from recmarket.agents.llm.config import OFFLINE
from recmarket.analysis.records import records_per_history
from recmarket.catalogue.conditions import condition
from recmarket.catalogue.scopes import SCOPES
from recmarket.config import RunConfig
from recmarket.data.sources import demo_users
from recmarket.report.data import Cell
from recmarket.report.paper import NOT_MEASURED, NOT_PAIRED
from recmarket.report.paper import summary as comparison_line
from recmarket.vocabulary import ROLES


@dataclass(frozen=True)
class RunSummary:
    """The report's first screen: what ran, what it found and what it cannot show."""

    ran: tuple[tuple[str, str], ...]  # (what, value): experiments, scale, data, backend...
    found: tuple[str, ...]  # the paper comparison, counted
    cautions: tuple[str, ...]  # what this run cannot show, each from its own measurements

    def html(self) -> str:
        """The first screen as HTML, every value escaped."""
        facts = "".join(f"<dt>{html.escape(k)}</dt><dd>{html.escape(v)}</dd>" for k, v in self.ran)
        found = "".join(f"<p>{html.escape(line)}</p>" for line in self.found)
        cautions = "".join(f"<li>{html.escape(line)}</li>" for line in self.cautions)
        return (
            '<section id="summary"><h2>Summary</h2>'
            f'<h3>What ran</h3><dl class="facts">{facts}</dl>'
            f"<h3>What it found</h3>{found}"
            "<h3>What this run cannot show</h3>"
            + (f"<ul>{cautions}</ul>" if cautions else "<p>Nothing this summary can name.</p>")
            + "</section>"
        )


def data_name(config: RunConfig) -> str:
    """The data the run read, in words: the bundled demo domains, a demo market of N users,
    or a directory."""
    if config.data is None:
        return "the bundled demo domains (synthetic)"
    users = demo_users(config.data)
    if users is not None:
        return f"a synthetic demo market of {users:,} reviewers a domain ({config.data})"
    return f"review files in {config.data}"


def backend_name(config: RunConfig) -> str:
    """Which agents answered the roles: the offline rules, or the models per role."""
    llm = config.llm
    if llm is None:
        return "offline agents (rule-based behavioural model)"
    models = {role: llm.model_for(role) for role in ROLES}
    answered = {r: m for r, m in models.items() if m != OFFLINE}
    if not answered:
        return "offline agents (rule-based behavioural model)"
    by_model: dict[str, list[str]] = {}
    for role, model in answered.items():
        by_model.setdefault(llm.models[model].name, []).append(role)
    said = "; ".join(f"{name} ({', '.join(roles)})" for name, roles in by_model.items())
    offline = [r for r in ROLES if r not in answered]
    return f"LLM model {said}" + (f"; offline rules for {', '.join(offline)}" if offline else "")


def _listed(values: Iterable[str]) -> str:
    return "; ".join(sorted(set(values)))


def _unique(cells: list[Cell]) -> list[Cell]:
    """Each store's cell once (a cell two experiments share counts once)."""
    return list({(c.run_dir, c.seeds): c for c in cells}.values())


def _provenance(cells: list[Cell]) -> list[tuple[str, str]]:
    made = [m for c in cells for m in c.made]
    commits = sorted({m.commit[:10] for m in made if m.commit})
    dirty = {m.dirty for m in made}
    if not commits:
        commit = "not recorded (the running code came from no git checkout pip could name)"
    else:
        state = "with uncommitted changes" if True in dirty else "clean"
        commit = f"{', '.join(commits)} ({state})"
    days = sorted({m.created[:10] for m in made if m.created})
    when = days[0] if len(days) == 1 else f"{days[0]} to {days[-1]}" if days else "not recorded"
    versions = _listed(m.version for m in made if m.version) or "not recorded"
    return [("commit", f"{commit}; recmarket {versions}"), ("date", when)]


def _scale(cells: list[Cell]) -> str:
    scales = {c.scale for c in cells}
    known = sorted(s for s in scales if s is not None)
    said = ", ".join(f"{s:g}" for s in known)
    if None in scales:
        said = (said + "; " if said else "") + "not recorded (a plan from an older version)"
    return said


def run_summary(
    cells: dict[str, dict[str, Cell]],
    comparison: list[dict[str, Any]],
    out_dirs: int,
    facts: Sequence[tuple[str, str]] = (),
    findings: Sequence[str] = (),
) -> RunSummary:
    """The report's first screen from its cells and the paper comparison, with ``facts``
    and ``findings`` of its own (a pilot's: report/pilot_summary.py)."""
    every = [c for members in cells.values() for c in members.values()]
    unique = _unique(every)
    seeds = sorted({s for c in every for s in c.seeds})
    episodes = sum(len(c.rows) for c in unique)
    ran = [
        (
            "experiments",
            f"{', '.join(cells)}: {len(every)} cells ({len(unique)} distinct runs), "
            f"{episodes:,} episodes, from "
            f"{out_dirs} reproduce director{'y' if out_dirs == 1 else 'ies'}",
        ),
        ("seeds", f"{len(seeds)} ({', '.join(map(str, seeds))})"),
        ("scale", _scale(every)),
        ("data", _listed(data_name(c.config) for c in unique)),
        ("backend", _listed(backend_name(c.config) for c in unique)),
        *_provenance(unique),
        *facts,
    ]
    found = (*_found(comparison), *findings)
    return RunSummary(tuple(ran), found, tuple(cautions(unique, comparison)))


# The paper numbers the three headline findings are read from, by their ``what``.
HEADLINES = {
    "present_pc": "Target Present, Platform-Centric",
    "present_nr": "Target Present, user agent NoRep",
    "exag_nr": "Exaggeration Top-1 share, NoRep, equal market",
    "exag_lr": "Exaggeration Top-1 share, LocalRep, equal market",
    "exag_move": "Exaggeration Top-1 share, LocalRep minus NoRep, equal market",
    "purchase_move": "Target Purchase, LocalRep minus NoRep, equal market",
}


def _value(row: dict[str, Any], sign: str = "") -> str:
    """A measured number with its interval: 41.2% [38.0, 44.1]."""
    unit = "" if sign else "%"
    ours, low, high = (float(row[k]) for k in ("ours", "low", "high"))
    return f"{ours:{sign}.1f}{unit} [{low:{sign}.1f}, {high:{sign}.1f}]"


def headlines(comparison: list[dict[str, Any]]) -> list[str]:
    """The three headline findings, one sentence each with its number and 95% interval,
    where this run measured them: the user agent's access gain, Exaggeration's Top-1 share
    under NoRep and LocalRep, and LocalRep's move in target purchase with its chain."""
    found = {
        key: row
        for key, what in HEADLINES.items()
        for row in comparison
        if row["what"].startswith(what) and row["ours"] != "" and row["low"] != ""
    }
    said = []
    if {"present_pc", "present_nr"} <= set(found):
        pc, nr = found["present_pc"], found["present_nr"]
        said.append(
            f"Access: the target reached the pool in {_value(nr)} of NoRep episodes against "
            f"{_value(pc)} under Platform-Centric (the paper: {nr['paper']}% and "
            f"{pc['paper']}%)."
        )
    if {"exag_nr", "exag_lr", "exag_move"} <= set(found):
        move = found["exag_move"]
        said.append(
            f"Attention: Exaggeration's Top-1 share in the equal market was "
            f"{_value(found['exag_nr'])} under NoRep and {_value(found['exag_lr'])} under "
            f"LocalRep, a change of {_value(move, '+')} points (the paper: {move['paper']}; "
            f"{move['verdict']})."
        )
    if "purchase_move" in found:
        move = found["purchase_move"]
        chain = f"; its chain {move['chain']}" if move.get("chain") else ""
        said.append(
            f"Accountability: LocalRep moved target purchase in the equal market by "
            f"{_value(move, '+')} points (the paper: +{move['paper'].lstrip('+')}; "
            f"{move['verdict']}){chain}."
        )
    return said


def _found(comparison: list[dict[str, Any]]) -> list[str]:
    measured = [r for r in comparison if r["verdict"] not in NOT_MEASURED]
    return [
        *headlines(comparison),
        f"{len(measured)} of the paper's {len(comparison)} reported numbers were measured "
        "here (the rest need experiments this run did not include, or have no offline "
        "counterpart).",
        comparison_line(comparison) + ".",
    ]


def cautions(cells: list[Cell], comparison: list[dict[str, Any]]) -> list[str]:
    """What this run cannot show, each said from its own settings and measurements."""
    said = [*_history_cautions(cells), *_power_cautions(cells, comparison)]
    apart = sum(1 for r in comparison if r["verdict"] == NOT_PAIRED)
    if apart:
        said.append(
            f"{apart} of the paper's numbers compare a user's own memory with one a domain "
            "shares, which a scaled run plays on other requests (docs/scaling.md), so they "
            "are not measured; --scale 1 measures them."
        )
    offline = [c for c in cells if not c.config.uses_llm]
    if offline:
        design = sum(1 for r in comparison if r["kind"] == "design" and r["ours"] != "")
        said.append(
            f"Offline agents played {len(offline)} of the {len(cells)} cells: emergent results "
            "are this behavioural model's, not an LLM's"
            + (
                f", and {design} design contrast{'s' * (design != 1)} "
                f"{'have their' if design != 1 else 'has its'} sign fixed in advance by a "
                "named assumption of the model (the basis column names it)."
                if design
                else "."
            )
        )
    demo = [c for c in cells if c.config.data is None or demo_users(c.config.data) is not None]
    if demo:
        said.append(
            f"{len(demo)} cells ran on synthetic demo data: access levels follow the "
            "protocol, but judgement levels (shortlisted, Top-1, purchased) are the "
            "generator's and the offline model's; compare contrasts, not levels."
        )
    failed = sum(1 for c in cells for r in c.rows if r["failed_role"])
    if failed:
        said.append(
            f"{failed:,} episodes ended when a role's answer could not be used: they count "
            "as outcomes (no purchase), and their share is each cell's role failures."
        )
    return said


def _rounds_per_user(cell: Cell) -> float:
    """The median number of episodes a simulated user played in one replicate and domain."""
    rounds = Counter((r.get("replicate"), r["domain"], r["sim_user"]) for r in cell.rows)
    return float(median(rounds.values()))


def _history_cautions(cells: list[Cell]) -> list[str]:
    """How long the reputation histories grew: the rounds a user played and the records a
    platform reached in one memory set, against the window W a mechanism reads."""
    kept = [c for c in cells if condition(c.config.condition).reputation]
    per_user = [c for c in kept if SCOPES.get(c.config.reputation_scope).unit == "user"]
    said = []
    scales = {c.scale for c in per_user if c.scale}
    if per_user and len(scales) == 1 and (scale := scales.pop()) < 1:
        played = sorted(_rounds_per_user(c) for c in per_user)
        full = sorted({c.full_rounds for c in per_user if c.full_rounds})
        span = f"{played[0]:g}" if played[0] == played[-1] else f"{played[0]:g} to {played[-1]:g}"
        of = f" of the {'/'.join(f'{r:g}' for r in full)} it plays at full scale" if full else ""
        by_cut: dict[str, set[str]] = {}
        for c in per_user:
            if c.cut:
                by_cut.setdefault(c.cut, set()).add(c.experiment)
        cuts = [f"{cut} ({', '.join(sorted(names))})" for cut, names in sorted(by_cut.items())]
        said.append(
            f"At --scale {scale:g}, a user with their own memory (LocalRep) plays about "
            f"{span} rounds a cell{of} ({len(per_user)} such cells)"
            + (f"; the scale {'; '.join(cuts)}." if cuts else ".")
        )
    if kept:
        counts = [int(n) for c in kept for n in records_per_history(c.rows, c.config)]
        window = min(c.config.market.memory_window for c in kept)
        longest = max(counts, default=0)
        typical = median(counts) if counts else 0
        reached = (
            f"no history passed the window W = {window} records, so mechanisms that differ "
            "only past it (window, beta, decay) cannot be told apart here"
            if longest <= window
            else f"{sum(n > window for n in counts) / len(counts):.0%} of histories passed "
            f"the window W = {window}"
        )
        said.append(
            f"Records per platform per memory set over {len(kept)} reputation "
            f"cell{'s' * (len(kept) != 1)}: "
            f"median {typical:g}, most {longest}; {reached}."
        )
    return said


def _power_cautions(cells: list[Cell], comparison: list[dict[str, Any]]) -> list[str]:
    said = []
    contrasts = [r for r in comparison if r["kind"] and r["ours"] != ""]
    flat = sum(r["verdict"] == "no detectable effect" for r in contrasts)
    scales = {c.scale for c in cells if c.scale}
    if flat and len(scales) == 1 and (scale := scales.pop()) < 1:
        said.append(
            f"{flat} of the {len(contrasts)} measured contrasts show no detectable effect; at "
            f"--scale {scale:g} an interval is about {1 / math.sqrt(scale):.1f} times as wide "
            "as at full scale, so these say little about whether an effect exists."
        )
    none = sum(r["verdict"] == "no interval" for r in contrasts)
    seeds = {s for c in cells for s in c.seeds}
    if none:
        said.append(
            f"{none} contrasts have no interval: with {len(seeds)} seed(s), a cell whose "
            "episodes share one history a seed (a shared memory, a learning market) has "
            "nothing to resample; run more --seeds."
        )
    return said
