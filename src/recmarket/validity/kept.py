"""Where ``recmarket validate`` keeps a card for the report: one per data directory and
user model (the offline parameters, the role backends, and the models that answer roles,
as their audit cards are keyed), so a report of cells played on real data finds the card
of the very user model that played them, as it finds a model's audit card."""

from __future__ import annotations

import csv
import hashlib
import json
import math
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from recmarket.agents.llm.audit.card import settings_key
from recmarket.agents.llm.config import OFFLINE
from recmarket.config import RunConfig
from recmarket.embedding.cache import default_cache_dir
from recmarket.validity.card import COLUMNS, CardRow, write_csv
from recmarket.vocabulary import ROLES

CARD_CSV = "validity.csv"
ABOUT = "card.json"
MAX_ROWS = 1_000  # a card has about 60; a file beyond this was not written here


class KeptCard(BaseModel):
    """What a kept card says of itself: the data it was made on, and how."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    data: str
    half: str
    made: str


def default_cards() -> Path:
    """Where ``validate`` keeps cards, and where ``report`` looks."""
    return default_cache_dir() / "validity"


def user_model_key(settings: RunConfig, data: Path) -> str:
    """The data directory and what decides the user's answers, hashed."""
    models = {}
    if settings.llm is not None:
        for role in ROLES:
            if (name := settings.llm.model_for(role)) != OFFLINE:
                models[role] = settings_key(settings.llm.models[name], settings.llm.repair_attempts)
    decided = {
        "data": str(data.resolve()),
        "agents": settings.agents.model_dump(mode="json"),
        "roles": {role: str(value) for role, value in settings.roles.items()},
        "models": models,
        "embedder": settings.embedder.model_dump(mode="json"),
    }
    return hashlib.sha256(json.dumps(decided, sort_keys=True).encode()).hexdigest()[:16]


def keep_card(
    rows: list[CardRow], about: KeptCard, settings: RunConfig, data: Path, cards: Path
) -> Path:
    """Write the card where ``report`` finds it; its directory."""
    where = cards / user_model_key(settings, data)
    where.mkdir(parents=True, exist_ok=True)
    write_csv(rows, where / CARD_CSV)
    (where / ABOUT).write_text(about.model_dump_json(indent=1) + "\n", encoding="utf-8")
    return where


def read_kept(
    settings: RunConfig, data: Path, cards: Path
) -> tuple[KeptCard, list[CardRow]] | None:
    """The kept card of this data and user model, if one was made; a damaged one is
    refused with its path."""
    where = cards / user_model_key(settings, data)
    if not (where / ABOUT).is_file() or not (where / CARD_CSV).is_file():
        return None
    about = KeptCard.model_validate_json((where / ABOUT).read_text(encoding="utf-8"))
    with (where / CARD_CSV).open(newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        if tuple(reader.fieldnames or ()) != COLUMNS:
            raise ValueError(f"{where / CARD_CSV}: columns {reader.fieldnames}, not {COLUMNS}")
        rows = []
        for line, found in enumerate(reader, start=2):
            if line > MAX_ROWS:
                raise ValueError(f"{where / CARD_CSV}: more than {MAX_ROWS} rows")
            try:
                rows.append(_row(found))
            except ValueError as error:
                raise ValueError(f"{where / CARD_CSV} line {line}: {error}") from None
    return about, rows


def _row(found: dict[str, str]) -> CardRow:
    def number(column: str) -> float:
        return math.nan if found[column] == "" else float(found[column])

    return CardRow(
        found["measure"],
        found["protocol"],
        found["scorer"],
        int(found["n_people"]),
        int(found["n"]),
        number("value"),
        number("low"),
        number("high"),
        number("chance"),
    )
