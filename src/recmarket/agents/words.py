"""Content words of a text, as every reader in recmarket takes them: lower-cased words
without function words and the chatter of shopping requests, plurals stemmed. The offline
roles read needs and listings this way, and so do the measures the market takes of an
episode (a need's terms a listing visibly shows), so it lives outside any backend.
"""

from __future__ import annotations

import re
from functools import lru_cache

WORD = re.compile(r"[a-z0-9]+(?:[.\-/][a-z0-9]+)*")

# Function words and the generic chatter of shopping requests: what says nothing of a product.
_STOPWORD_TEXT = """
    a an and are as at be been but by can could do does for from had has have i i'm in
    into is it its it's just like me my need needs of on one or our so some something that
    the their them then there these this to too up us very was want wants we were what
    when which while who will with would you your yours looking look lot get good great
    new also any more most much item items product products pick option options request
    current long term well highly rated prefers prefer often buys usually probably thinking
    ideas open today here beginner's what's which should
    ideally replace replacement backup matters matter possible requirement requirements hard
    first buying buy else similar nice maybe help recommend suggestions anything kind sort
    type sure already own owned gives between balances against matters trade-off versus
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A light plural stemmer: enough to match 'strings' with 'string'."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


@lru_cache(maxsize=65536)
def terms(text: str) -> frozenset[str]:
    """Stemmed content words of a text (each distinct word stemmed once: a listing repeats
    its words, and its terms are read the first time any platform explains it)."""
    return frozenset(map(stem, set(WORD.findall(text.lower())) - STOPWORDS))


def content_words(text: str) -> tuple[str, ...]:
    """A text's content words as written (lower-cased), in order, one per stem: the words a
    platform can put into a listing, where ``terms`` are what a reader matches."""
    seen: dict[str, str] = {}
    for word in WORD.findall(text.lower()):
        if word not in STOPWORDS:
            seen.setdefault(stem(word), word)
    return tuple(seen.values())


def unsupported(listing: str, own: str) -> int:
    """How many of a listing's terms the item's own fields (``own``: its title, category,
    description and feature bullets) do not hold: the words a rewrite added that the item
    does not support."""
    return len(terms(listing) - terms(own))
