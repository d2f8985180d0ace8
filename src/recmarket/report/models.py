"""The report's LLM section: each model that answered a role, its audit card (``llm audit``)
beside the cells it played, and a warning wherever it fails a probe of a role it played
there, naming the results that rest on that probe. A model that was never audited is said
to be, with the command that audits it."""

from __future__ import annotations

import html
import sqlite3
from dataclasses import dataclass, field
from typing import Any

from recmarket.agents.llm.audit.card import AuditCard, read_card, settings_key
from recmarket.agents.llm.config import OFFLINE, ModelConfig
from recmarket.embedding.cache import default_cache_dir
from recmarket.report.bill import bill_rows
from recmarket.report.cards import audit_cards
from recmarket.report.data import Cell
from recmarket.report.html import table_html
from recmarket.run.store import RunStore
from recmarket.vocabulary import ROLES


@dataclass
class Played:
    """One model (one set of settings), the cells it answered roles in, and which roles."""

    cfg: ModelConfig
    repair_attempts: int
    roles: set[str] = field(default_factory=set)
    cells: list[tuple[str, str, Cell]] = field(default_factory=list)


def models_played(cells: dict[str, dict[str, Cell]]) -> list[Played]:
    """Every model that played a cell of the report, with its cells."""
    found: dict[str, Played] = {}
    for experiment, members in cells.items():
        for name, cell in members.items():
            llm = cell.config.llm
            if llm is None:
                continue
            for role in ROLES:
                model = llm.model_for(role)
                if model == OFFLINE:
                    continue
                cfg = llm.models[model]
                key = settings_key(cfg, llm.repair_attempts)  # as its card is kept
                played = found.setdefault(key, Played(cfg, llm.repair_attempts))
                played.roles.add(role)
                if not played.cells or played.cells[-1][2] is not cell:
                    played.cells.append((experiment, name, cell))
    return list(found.values())


def _another_model(card: AuditCard, model: Played) -> str:
    """Why the card speaks for another model than the runs' (empty when it does not): the
    endpoint reported the model otherwise when the runs sent their calls than when the
    audit sent its own."""
    if not card.endpoint_report:
        return ""
    seen = set()
    for _, _, cell in model.cells:
        try:
            with RunStore.read(cell.run_dir) as store:
                rows = store.db.execute(
                    "SELECT report FROM llm_models WHERE model = ? AND base_url = ?",
                    (model.cfg.name, model.cfg.base_url),
                ).fetchall()
        except (OSError, sqlite3.Error):  # a store made before reports were kept
            continue
        seen |= {str(report) for (report,) in rows}
    if not seen or seen == {card.endpoint_report}:
        return ""
    return (
        f"the audit card was made when the endpoint reported the model as "
        f"{card.endpoint_report[:120]}, the runs' calls when it reported "
        f"{', '.join(sorted(r[:120] for r in seen))}: the card is another model's, so it "
        "is not shown as this one's"
    )


def card_rows(card: AuditCard) -> list[dict[str, Any]]:
    """An audit card's probes as table rows."""
    rows = []
    for r in card.results:
        low, high = r.interval
        rows.append(
            {
                "probe": r.probe,
                "role": r.role,
                "passed": f"{r.passes}/{r.trials}",
                "rate": f"{r.rate:.0%}",
                "95% interval (Wilson)": f"{low:.0%}-{high:.0%}",
                "by chance": f"{r.chance:.0%}" if r.chance else "-",
                "verdict": r.verdict,
            }
        )
    return rows


def result_rows(played: Played) -> list[dict[str, Any]]:
    """The cells a model played, as table rows of their metrics."""
    return [
        {"experiment": experiment, "cell": name} | cell.summary
        for experiment, name, cell in played.cells
    ]


def warnings(played: Played, card: AuditCard) -> list[str]:
    """A line for each probe the model fails of a role it played in these cells."""
    said = []
    for r in card.results:
        roles = {role.strip() for role in r.role.split(",")}
        if r.fails and roles & played.roles:
            said.append(
                f"{played.cfg.name} fails the {r.probe} probe ({r.passes}/{r.trials}); "
                f"resting on it here: {r.depends}"
            )
    return said


def _study_card(model: Played) -> AuditCard | None:
    """The model's audit card as its cells' study keeps it (``report.cards``)."""
    for _, _, cell in model.cells:
        if cell.study is not None:
            card = read_card(audit_cards(cell.study), model.cfg, model.repair_attempts)
            if card is not None:
                return card
    return None


def models_section(cells: dict[str, dict[str, Cell]]) -> str:
    """The section's body, or "" when no cell used an LLM; its heading is the report's
    (``layout.CLOSING``), as every section's is. Each card is read from the cells' own study
    (``report.cards``), so the report reads its directories alone."""
    played = models_played(cells)
    if not played:
        return ""
    parts = [
        "<p>Each model's audit "
        "(<code>recmarket llm audit</code>: controlled probes with a known right answer, "
        "pass rates with 95% Wilson intervals) beside the cells in which it answered a "
        "role. A probe fails when its whole interval lies below 80%; results resting on a "
        "failed probe say more about the model than about the market.</p>"
    ]
    for model in played:
        cfg = model.cfg
        roles = ", ".join(r for r in ROLES if r in model.roles)
        parts.append(
            f"<h3>{html.escape(cfg.name)} at {html.escape(cfg.base_url)} "
            f"(roles: {html.escape(roles)})</h3>"
        )
        card = _study_card(model)
        if card is not None and (other := _another_model(card, model)):
            parts.append(f'<p class="warning"><strong>Warning:</strong> {html.escape(other)}.</p>')
            card = None
        if card is None:
            parts.append(
                "<p><strong>Not audited</strong>: run <code>recmarket llm audit --config "
                "FILE</code> with this model's settings, then <code>recmarket cards "
                "STUDY</code>, before reading its results.</p>"
            )
        else:
            parts.append(
                f"<p>Audited {html.escape(card.made)}: {card.trials} trials a probe, seed "
                f"{card.seed}, listings of {html.escape(card.domain)}.</p>"
                + table_html(card_rows(card))
            )
            parts += [
                f'<p class="warning"><strong>Warning:</strong> {html.escape(w)}.</p>'
                for w in warnings(model, card)
            ]
        parts.append(table_html(result_rows(model)))
        bills = [
            {"experiment": experiment, "cell": name} | row
            for experiment, name, cell in model.cells
            for row in bill_rows(cell.run_dir, cell.config, default_cache_dir())
        ]
        if bills:
            parts.append(
                "<p>What each cell's calls cost beside what <code>recmarket estimate</code> "
                "says for its settings, bought as the cell bought them (typical completion "
                "lengths; <code>estimate --pilot</code> uses a model's own):</p>"
                + table_html(bills)
            )
    return "\n".join(parts)
