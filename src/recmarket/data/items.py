"""Item metadata and the evidence a platform may show about an item.

Real ``meta_{Category}.jsonl`` records are uneven: ``description`` is a list and often
empty, ``categories`` is often empty, ``price`` is a float, null or (in some re-shaped
samples) a string. Evidence is built so that every item has something truthful to say, and
says where it came from.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from recmarket.data.raw import LoadIssues, iter_records
from recmarket.data.reviews import id_hash

MAX_DESCRIPTION_CHARS = 1200
UNTITLED_WORDS = 12  # an untitled listing's title from its other fields: a title's length

TITLE_HEAD = re.compile(r"\s+-\s+|,|\(|\)|\||:|\s+with\s+|\s+for\s+", re.IGNORECASE)
TITLE_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'.\-/]*")
DIGIT = re.compile(r"[0-9]")  # a title word's only digits (TITLE_WORD is ASCII)


# Words that qualify a product rather than name it: units and measures, colours and finishes,
# materials, sizes and grades, platforms and ratings, connections. Real and demo titles put
# them after the kind noun ("Guitar Strap Black", "Headlamp 500 Lumens", "Picks Medium 0.73
# Mm", "Strings Phosphor Bronze"), so the kind is read before them. Nouns that are also
# products ("glass", "wood", "light" as a lamp, "pack" as a bag) are left out on purpose.
_NOT_A_KIND_TEXT = """
    mm cm inch inches in ft feet m oz lb lbs kg g l ml gb tb mb watt watts w v volt lumens
    size ghz hz mah count pk pcs pieces pair pairs
    black white red blue green pink grey gray silver gold brown purple yellow orange clear
    navy beige ivory teal olive bronze copper chrome natural sunburst transparent matte
    glossy camo walnut maple rosewood
    steel stainless nickel-plated phosphor aluminum aluminium metal plastic leather cotton
    bamboo silicone rubber wool canvas ceramic nylon polyester polypropylene plywood tolex
    foam mesh
    small medium large xl xxl mini compact extra heavy standard regular professional pro
    premium deluxe classic original upgraded lightweight portable
    pc xbox playstation nintendo series x ps4 ps5 rated e t everyone teen mature
    wireless wired bluetooth usb usb-c rechargeable backlit lcd led dual quad charging
    online multiplayer co-op split-screen single-player passthrough xlr turbo
    beginner intermediate advanced modern vintage acoustic folding expandable extended duty
    quiet polarized mirrored padded compression fiber polymer cloth weave shimmer action
    vents keys percent high-gain all-weather full-size recycled insulated compatible
    replacement plated gold-plated dark s xs x-large abs birch straight right-angle angled
    to of and
"""
NOT_A_KIND = frozenset(_NOT_A_KIND_TEXT.split())
# "Rated T For Teen": a game's rating, whose "For" would otherwise end the title's head.
_RATING = re.compile(r"\brated\s+[a-z0-9+]+(?:\s+for\s+[a-z]+)?", re.IGNORECASE)


def _kind_words(words: list[str]) -> list[str]:
    """A head's words without the qualifiers (NOT_A_KIND) that trail its kind noun; all of
    them where every word is one."""
    end = len(words)
    while end > 0 and words[end - 1] in NOT_A_KIND:
        end -= 1
    return words[:end] or words


@lru_cache(maxsize=65536)
def product_kind(title: str) -> str:
    """The kind of product a title names: the last two words of its head (the part before
    the first comma, dash, parenthesis, bar, colon, "with" or "for"), lower-cased, leaving
    out model codes and sizes (words with digits) and the qualifiers that trail the kind
    noun (NOT_A_KIND: "Guitar Strap Black" names a strap, "Amplifier 100 Watt" an
    amplifier). Real titles put the kind at the end of the head ("Ernie Ball Regular Slinky
    Electric Guitar Strings, ..."). Some lead with a code instead ("221-615 | WAGO
    Lever-Nuts Splicing Connector", "60W (80W Peak) Portable Bluetooth Speaker"): then the
    first later part of two such words names it, else the first of one. Empty only where no
    part has a word without digits ("2Cellos", "")."""
    parts = [
        _kind_words([w.lower() for w in TITLE_WORD.findall(part) if not DIGIT.search(w)])
        for part in TITLE_HEAD.split(_RATING.sub(" ", title))
    ]
    later = [words for words in parts[1:] if words]
    named = parts[0] or next((w for w in later if len(w) >= 2), later[0] if later else [])
    return " ".join(named[-2:])


def kind_noun(text: str) -> str:
    """The head noun of a title's product kind (``product_kind``), with a plural's final
    "s" left off, so that "Gel Pens" and "Ballpoint Pen" name one kind; empty where the
    title names none."""
    kind = product_kind(text).split()
    return kind[-1].strip(".'-/").removesuffix("s") if kind else ""


class ItemEvidence(BaseModel):
    """What a platform sees of its candidate (Appendix B.3): title, category, description,
    plus the feature bullets the description may fall back on and the listing's rating
    (the Strict policy speaks of low-rated evidence)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    title: str
    category: str
    description: str
    description_source: str  # "description", "features", "details" or "none"
    features: tuple[str, ...]
    average_rating: float | None = None
    rating_number: int | None = None

    def __hash__(self) -> int:
        """A hash of the title and description only (equal evidence has equal ones): the
        offline roles look an item up in their caches several times an episode, and the
        hash pydantic makes of all seven fields rebuilds and hashes the features each time."""
        return hash((self.title, self.description))

    def text(self) -> str:
        """The text a dense retriever embeds for this item."""
        return ". ".join(filter(None, (self.title, self.category, self.description)))


@dataclass(frozen=True)
class Item:
    """One listing of the item universe: its evidence and where its fields came from."""

    parent_asin: str
    title: str
    main_category: str
    categories: tuple[str, ...]
    description: str
    features: tuple[str, ...]
    details: tuple[tuple[str, str], ...]
    average_rating: float | None
    rating_number: int | None
    price: float | None
    store: str | None

    @property
    def untitled(self) -> bool:
        """Whether the listing came without a title (about half of some real categories')."""
        return not self.title

    @cached_property
    def shown_title(self) -> str:
        """The title the listing is known by everywhere (its evidence, a history, a held-out
        target): its own, or for an untitled listing one described from its other fields,
        as a shopper would see it on the page: the first feature bullet, else the
        description's first sentence, each cut to UNTITLED_WORDS words, else its category
        and "item". Untitled listings stay in the market rather than thin it by half."""
        if self.title:
            return self.title
        sentence = self.description.split(". ")[0] if self.description else ""
        for text in (*self.features[:1], sentence):
            words = text.split()
            if words:
                return " ".join(words[:UNTITLED_WORDS])
        return f"{self.categories[-1] if self.categories else self.main_category or 'Unnamed'} item"

    @cached_property
    def evidence(self) -> ItemEvidence:
        category = " > ".join(self.categories) if self.categories else self.main_category
        sources = (
            ("description", self.description),
            ("features", "; ".join(self.features)),
            ("details", "; ".join(f"{k}: {v}" for k, v in self.details)),
        )
        source, text = next(((s, t) for s, t in sources if t), ("none", ""))
        return ItemEvidence(
            title=self.shown_title,
            category=category or "Uncategorized",
            description=text[:MAX_DESCRIPTION_CHARS],
            description_source=source,
            features=self.features,
            average_rating=self.average_rating,
            rating_number=self.rating_number,
        )


def _strings(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        return ()
    return tuple(s.strip() for s in value if isinstance(s, str) and s.strip())


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip().lstrip("$").replace(",", ""))
        except ValueError:
            return None
    return None


def parse_item(record: dict[str, Any]) -> Item | str:
    """An item from one meta record, or the reason it is unusable."""
    asin, title = record.get("parent_asin"), record.get("title")
    if not isinstance(asin, str) or not asin:
        return "missing required field: parent_asin"
    if not isinstance(title, str):
        return "missing required field: title"
    details = record.get("details")
    rating_number = _number(record.get("rating_number"))
    return Item(
        parent_asin=asin,
        title=title.strip(),
        main_category=record.get("main_category") or "",
        categories=_strings(record.get("categories")),
        description=" ".join(_strings(record.get("description"))),
        features=_strings(record.get("features")),
        details=tuple((str(k), str(v)) for k, v in details.items() if v not in (None, "", [], {}))
        if isinstance(details, dict)
        else (),
        average_rating=_number(record.get("average_rating")),
        rating_number=int(rating_number) if rating_number is not None else None,
        price=_number(record.get("price")),
        store=record.get("store") if isinstance(record.get("store"), str) else None,
    )


def read_meta(path: Path, wanted: Collection[int] | None, issues: LoadIssues) -> dict[int, Item]:
    """Items keyed by the hash of their parent_asin, keeping only ``wanted`` hashes (all when
    None) so that a multi-gigabyte meta file costs memory only for items that are used."""
    items: dict[int, Item] = {}
    for lineno, record in iter_records(path, issues):
        asin = record.get("parent_asin")
        key = id_hash(asin) if isinstance(asin, str) and asin else None
        if key is not None and wanted is not None and key not in wanted:
            continue
        item = parse_item(record)
        if isinstance(item, str) or key is None:  # parse_item names a missing parent_asin
            issues.skip(lineno, item if isinstance(item, str) else "missing parent_asin")
        elif key in items:
            issues.skip(lineno, f"duplicate parent_asin: {asin}")
        else:
            items[key] = item
    return items
