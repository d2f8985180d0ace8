"""Words of a text as the offline roles handle them: content terms, title parts, and the
content-word runs by which a request is kept from copying its target's title.

Levels written as words (claims, experience, belief) are not here: they live in
``lexicon``, the one module every writer and reader of them imports.
"""

from __future__ import annotations

import re
from functools import lru_cache

from recmarket.agents.words import STOPWORDS, WORD


@lru_cache(maxsize=65536)
def ordered_terms(text: str) -> tuple[str, ...]:
    """Content words in order of first appearance, unstemmed, without repeats."""
    seen: dict[str, None] = {}
    for w in WORD.findall(text.lower()):
        if w not in STOPWORDS:
            seen.setdefault(w, None)
    return tuple(seen)


def words(text: str, limit: int) -> str:
    """At most ``limit`` words of a text."""
    return " ".join(text.split()[:limit])


_SPLIT = re.compile(r"\s+-\s+|,|\(|\)|\||:")
_USE = re.compile(r"\bfor ([a-z][a-z ]{2,40}?)(?:[.,!;]|$)")


@lru_cache(maxsize=65536)
def title_parts(title: str) -> tuple[str, tuple[str, ...]]:
    """(product kind, attribute phrases) read off a listing title: the kind is the last
    words of the title's head, attributes are the short segments after it."""
    head, *rest = (s.strip() for s in _SPLIT.split(title))
    head_words = [w for w in head.split() if w.lower() not in STOPWORDS]
    kind = " ".join(head_words[-3:]).lower() or head.lower()
    attributes = tuple(s.lower() for s in rest if 0 < len(s.split()) <= 4)
    return kind, attributes


@lru_cache(maxsize=65536)
def short_title(title: str, limit: int = 8) -> str:
    return words(_SPLIT.split(title)[0].strip() or title, limit)


def use_phrase(text: str) -> str | None:
    """What a text says something is for: the words after "for", up to a function word."""
    match = _USE.search(text.lower())
    if not match:
        return None
    kept: list[str] = []
    for word in match.group(1).split()[:4]:
        if kept and word in FUNCTION_WORDS:
            break
        kept.append(word)
    return " ".join(kept)


def join_words(items: list[str]) -> str:
    """``a``, ``a and b`` or ``a, b and c``."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


# Function words only: what the copy check ignores between content words.
FUNCTION_WORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "of",
        "for",
        "to",
        "with",
        "in",
        "on",
        "at",
        "by",
        "from",
        "my",
        "me",
        "i",
        "is",
        "it",
        "that",
        "this",
        "be",
        "as",
    ]
)
_TOKEN = re.compile(r"[a-z0-9]+")


def content_words(text: str) -> list[str]:
    """The text's words in order, without function words and one-letter tokens."""
    return [w for w in _TOKEN.findall(text.lower()) if w not in FUNCTION_WORDS and len(w) > 1]


def shares_run(text: str, source: str, length: int = 4) -> bool:
    """Whether ``text`` repeats ``length`` consecutive content words of ``source``."""
    src = content_words(source)
    runs = {tuple(src[i : i + length]) for i in range(len(src) - length + 1)}
    got = content_words(text)
    return any(tuple(got[i : i + length]) in runs for i in range(len(got) - length + 1))
