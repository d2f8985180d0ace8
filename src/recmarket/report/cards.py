"""A study's own cards: the validity cards of the user models that played its real-data
cells and the audit cards of the models that answered its roles, copied beside its runs
(``STUDY/cards``) when it is played, so that its report reads its directories alone and
says the same on any machine.

``recmarket validate`` and ``recmarket llm audit`` keep their cards in the user's cache
(``validity.kept``, ``llm.audit.card``); ``reproduce`` gathers those of its cells into the
study when its cells are played, and ``recmarket cards STUDY`` gathers them again after a
card is made later. A validity card is matched to a cell by the digests of the data files
the cell's store recorded reading, never by a path, and an audit card by the model's
settings, as the cache keys them.
"""

from __future__ import annotations

from pathlib import Path

from recmarket.agents.llm.audit.card import card_dir, default_audits, read_card, write_card
from recmarket.agents.llm.config import OFFLINE
from recmarket.config import RunConfig
from recmarket.data.sources import demo_users
from recmarket.run.store import STORE_NAME, RunStore
from recmarket.run.study_plan import read_plan
from recmarket.validity.kept import default_cards, keep_card, read_kept
from recmarket.vocabulary import ROLES

CARDS = "cards"


def validity_cards(study: Path) -> Path:
    """Where a study keeps the validity cards of its cells' user models."""
    return study / CARDS / "validity"


def audit_cards(study: Path) -> Path:
    """Where a study keeps the audit cards of its cells' models."""
    return study / CARDS / "audits"


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
