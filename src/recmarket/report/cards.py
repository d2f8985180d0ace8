"""A study's own cards: the validity cards of the user models that played its real-data
cells and the audit cards of the models that answered its roles, copied beside its runs
(``STUDY/cards``) when it is played, so that its report reads its directories alone and
says the same on any machine.

``recmarket validate`` and ``recmarket llm audit`` keep their cards in the user's cache
(``validity.kept``, ``llm.audit.card``); ``reproduce`` gathers those of its cells into the
study when its cells are played, and ``recmarket cards STUDY`` gathers them again after a
card is made later (``study.cards``). A validity card is matched to a cell by the digests
of the data files the cell's store recorded reading, never by a path, and an audit card by
the model's settings, as the cache keys them.
"""

from __future__ import annotations

from pathlib import Path

CARDS = "cards"


def validity_cards(study: Path) -> Path:
    """Where a study keeps the validity cards of its cells' user models."""
    return study / CARDS / "validity"


def audit_cards(study: Path) -> Path:
    """Where a study keeps the audit cards of its cells' models."""
    return study / CARDS / "audits"
