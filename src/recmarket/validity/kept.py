"""Where ``recmarket validate`` keeps a card for the report: under the user model (the
offline parameters, the role backends, and the models that answer roles, as their audit
cards are keyed), one card for each data and protocol it was made on. The data is keyed by
the content of the files the card read (``data.fingerprint``), not their path, and the
protocol by every setting that changes the card (domains, negatives, pairs, seed, half), so a card
made with another seed never replaces this one, and a report of cells played on real data
finds the cards of the very user model and data that played them, as it finds a model's
audit card. A card is written whole (then renamed into place) under the cards folder's
writer lock, so two validates never leave half of one or lose one."""

from __future__ import annotations

import csv
import hashlib
import json
import math
from collections.abc import Mapping
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from recmarket.agents.llm.audit.card import settings_key
from recmarket.agents.llm.config import OFFLINE
from recmarket.config import RunConfig
from recmarket.data.fingerprint import digests
from recmarket.embedding.cache import default_cache_dir
from recmarket.files import write_text_whole
from recmarket.locks import BRIEF_WAIT, WriterLock
from recmarket.validity.card import COLUMNS, CardRow, write_csv
from recmarket.vocabulary import ROLES

CARD_CSV = "validity.csv"
ABOUT = "card.json"
MAX_ROWS = 100_000  # a card has a few hundred a category; beyond this, not written here
# The card's form: a card of an earlier form (before skipped people, pools and the ladder;
# before the 1:1 measures read several pairs) is kept under another key, so no report
# reads it as this one.
CARD_FORM = 3


class KeptCard(BaseModel):
    """What a kept card says of itself: the data it was made on (the directory as named,
    and each file's SHA-256 by name), and how."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    data: str
    files: dict[str, str] = Field(min_length=1)
    domains: tuple[str, ...]
    negatives: tuple[int, ...]
    pairs: int = Field(ge=1)
    seed: int
    half: str
    made: str

    def key(self) -> str:
        """The card's folder: its data's content and every setting that changes it."""
        decided = self.model_dump(mode="json", exclude={"data", "made"})
        return hashlib.sha256(json.dumps(decided, sort_keys=True).encode()).hexdigest()[:16]


def default_cards() -> Path:
    """Where ``validate`` keeps cards, and where ``report`` looks."""
    return default_cache_dir() / "validity"


def user_model_key(settings: RunConfig) -> str:
    """What decides the user's answers, hashed."""
    models = {}
    if settings.llm is not None:
        for role in ROLES:
            if (name := settings.llm.model_for(role)) != OFFLINE:
                models[role] = settings_key(settings.llm.models[name], settings.llm.repair_attempts)
    decided = {
        "card_form": CARD_FORM,
        "agents": settings.agents.model_dump(mode="json"),
        "roles": {role: str(value) for role, value in settings.roles.items()},
        "models": models,
        "embedder": settings.embedder.model_dump(mode="json"),
    }
    return hashlib.sha256(json.dumps(decided, sort_keys=True).encode()).hexdigest()[:16]


def keep_card(rows: list[CardRow], about: KeptCard, settings: RunConfig, cards: Path) -> Path:
    """Write the card where ``report`` finds it, whole, under the cards' writer lock; its
    directory."""
    where = cards / user_model_key(settings) / about.key()
    with WriterLock(cards, wait=BRIEF_WAIT):
        where.mkdir(parents=True, exist_ok=True)
        write_csv(rows, where / CARD_CSV)
        write_text_whole(where / ABOUT, about.model_dump_json(indent=1) + "\n")
    return where


def _kept(settings: RunConfig, cards: Path) -> list[tuple[KeptCard, Path]]:
    """Every card of this user model in ``cards``, with its folder."""
    found = []
    for about_file in sorted((cards / user_model_key(settings)).glob(f"*/{ABOUT}")):
        where = about_file.parent
        if (where / CARD_CSV).is_file():
            about = KeptCard.model_validate_json(about_file.read_text(encoding="utf-8"))
            found.append((about, where))
    return found


def read_kept(settings: RunConfig, data: Path, cards: Path) -> list[tuple[KeptCard, list[CardRow]]]:
    """The kept cards of this user model made on files that ``data`` holds now, byte for
    byte (none where no card was made); a damaged one is refused with its path."""
    found = []
    for about, where in _kept(settings, cards):
        paths = [data / name for name in about.files]
        if not all(p.is_file() for p in paths):
            continue
        if {name: d.sha256 for name, d in digests(paths).items()} != about.files:
            continue  # made on other bytes: not a card of this data
        found.append((about, _rows(where / CARD_CSV)))
    return found


def read_kept_for(
    settings: RunConfig, files: Mapping[str, str], cards: Path
) -> list[tuple[KeptCard, list[CardRow]]]:
    """The cards of this user model in ``cards`` made on the bytes a run recorded reading
    (``files``: SHA-256 by file name): every file both name has the same digest, and they
    share one at least. The data itself is not read, so a study's own cards
    (``report.cards``) say the same on any machine."""
    found = []
    for about, where in _kept(settings, cards):
        shared = about.files.keys() & files.keys()
        if shared and all(about.files[name] == files[name] for name in shared):
            found.append((about, _rows(where / CARD_CSV)))
    return found


def _rows(path: Path) -> list[CardRow]:
    with path.open(newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        if tuple(reader.fieldnames or ()) != COLUMNS:
            raise ValueError(f"{path}: columns {reader.fieldnames}, not {COLUMNS}")
        rows = []
        for line, found in enumerate(reader, start=2):
            if line > MAX_ROWS:
                raise ValueError(f"{path}: more than {MAX_ROWS} rows")
            try:
                rows.append(_row(found))
            except ValueError as error:
                raise ValueError(f"{path} line {line}: {error}") from None
    return rows


def _row(found: dict[str, str]) -> CardRow:
    def number(column: str) -> float:
        return math.nan if found[column] == "" else float(found[column])

    return CardRow(
        found["domain"],
        int(found["candidates"] or 0),
        found["pool"],
        found["measure"],
        found["protocol"],
        found["scorer"],
        int(found["n_people"]),
        int(found["n"]),
        number("value"),
        number("low"),
        number("high"),
        number("chance"),
        found["note"],
    )
