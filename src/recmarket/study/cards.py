"""Gathering a study's own cards beside its runs (``report.cards`` says where, and why): the
kept validity cards of the user models that played its real-data cells and the audit cards
of the models that answered its roles, copied from where ``validate`` and ``llm audit``
keep them."""

from __future__ import annotations

from pathlib import Path

from recmarket.agents.llm.audit.card import card_dir, default_audits, read_card, write_card
from recmarket.agents.llm.config import OFFLINE
from recmarket.config import RunConfig
from recmarket.data.sources import demo_users
from recmarket.report.cards import audit_cards, validity_cards
from recmarket.run.store import STORE_NAME, RunStore
from recmarket.run.study_plan import read_plan
from recmarket.validity.kept import default_cards, keep_card, read_kept
from recmarket.vocabulary import ROLES


def keep_beside(
    study: Path, cfg: RunConfig, *, cards: Path | None = None, audits: Path | None = None
) -> int:
    """Copy the kept cards of one cell's settings into the study (validity cards of its user
    model made on the bytes its data holds now; audit cards of its models); how many."""
    copied = 0
    data = cfg.data
    if data is not None and demo_users(data) is None and data.is_dir():
        for about, rows in read_kept(cfg, data, cards or default_cards()):
            keep_card(rows, about, cfg, validity_cards(study))
            copied += 1
    if cfg.llm is not None:
        names = {cfg.llm.model_for(role) for role in ROLES} - {OFFLINE}
        for name in sorted(names):
            model = cfg.llm.models[name]
            card = read_card(audits or default_audits(), model, cfg.llm.repair_attempts)
            if card is not None:
                write_card(card, card_dir(audit_cards(study), model, cfg.llm.repair_attempts))
                copied += 1
    return copied


def gather_cards(study: Path, *, cards: Path | None = None, audits: Path | None = None) -> int:
    """Copy into the study the kept cards of every cell its plan names that was played;
    how many (a card of several cells counts once a cell)."""
    copied, seen = 0, set()
    for entry in read_plan(study):
        run_dir = study / entry.run_dir
        if not (run_dir / STORE_NAME).is_file():
            continue
        with RunStore.read(run_dir) as store:
            cfg = store.config()
        if cfg.digest() not in seen:
            seen.add(cfg.digest())
            copied += keep_beside(study, cfg, cards=cards, audits=audits)
    return copied
