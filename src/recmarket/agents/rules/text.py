"""Reading text the way the offline agents do: content terms, and the wording cues that
carry confidence, hedging, disclosure and expectation gaps.

The agents never see policy labels or target identities; what they know of a platform's
stance they read from its words, exactly as an LLM would have to. The cue lists are the
model's documented vocabulary; the explanation writer and the review writer use phrases
that a reader with these lists can recognise, but readers match cues, not templates.
"""

from __future__ import annotations

import re
from functools import lru_cache

_WORD = re.compile(r"[a-z0-9]+(?:[.\-/][a-z0-9]+)*")

_STOPWORD_TEXT = """
    a an and are as at be been but by can could do does for from had has have i i'm in
    into is it its it's just like me my need needs of on one or our so some something that
    the their them then there these this to too up us very was want wants we were what
    when which while who will with would you your yours looking look lot get good great
    new also any more most much item items product products pick option options request
    current long term well highly rated prefers prefer often buys usually probably thinking
    ideas open today here beginner's what's which should
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())

CONFIDENT_CUES = (
    "perfect",
    "ideal",
    "best",
    "outstanding",
    "exceptional",
    "guaranteed",
    "effortless",
    "hassle-free",
    "amazing",
    "love",
    "exactly",
    "ultimate",
    "must-have",
    "flawless",
    "incredible",
    "unbeatable",
    "definitely",
    "absolutely",
    "superb",
    "smart choice",
    "you can't go wrong",
    "without compromise",
    "top-notch",
    "fantastic",
)
HEDGE_CUES = (
    "may",
    "might",
    "appears",
    "seems",
    "uncertain",
    "unclear",
    "not stated",
    "does not state",
    "does not mention",
    "limited",
    "partial",
    "however",
    "trade-off",
    "although",
    "check",
    "verify",
    "not confirmed",
    "missing",
    "only",
    "modest",
    "caution",
)
DISCLOSURE_CUES = (
    "does not state",
    "does not mention",
    "not stated",
    "trade-off",
    "limitation",
    "little detail",
    "uncertain",
    "partial match",
    "modest",
    "no description",
)
GAP_CUES = (
    "not as",
    "than described",
    "than promised",
    "made it sound",
    "expected more",
    "overstated",
    "oversold",
    "less than",
    "not quite",
    "weaker than",
)
CONTRADICTION_CUES = (
    "did not deliver",
    "not what was promised",
    "misleading",
    "did not work",
    "nothing like",
    "did not fit",
    "wrong for",
)
CONFIRMATION_CUES = (
    "as the listing",
    "as described",
    "as noted",
    "was upfront",
    "as mentioned",
    "no surprise",
    "as expected",
    "as warned",
)
DISCOUNT_CUES = ("discount", "overstated before", "were often overstated", "calibrate")
SUPPORT_CUES = ("borne out", "were accurate", "proved reliable")


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
    """Stemmed content words of a text."""
    return frozenset(stem(w) for w in _WORD.findall(text.lower()) if w not in STOPWORDS)


def ordered_terms(text: str) -> list[str]:
    """Content words in order of first appearance, unstemmed, without repeats."""
    seen: dict[str, None] = {}
    for w in _WORD.findall(text.lower()):
        if w not in STOPWORDS:
            seen.setdefault(w, None)
    return list(seen)


@lru_cache(maxsize=64)
def _cue_pattern(cues: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile(r"(?<![a-z0-9'])(?:" + "|".join(map(re.escape, cues)) + ")")


def count_cues(text: str, cues: tuple[str, ...]) -> int:
    """How many times any cue starts a word of the text (case-insensitive)."""
    return len(_cue_pattern(cues).findall(text.lower()))


def confidence(text: str) -> float:
    """Wording confidence in [-1, 1]: confident cues and exclamation marks against hedges."""
    up = count_cues(text, CONFIDENT_CUES) + text.count("!")
    down = count_cues(text, HEDGE_CUES)
    return (up - down) / (1.0 + up + down)


def assertiveness(text: str) -> float:
    """Strength of confident, selling language in [0, 1): hedges do not offset it."""
    up = count_cues(text, CONFIDENT_CUES) + text.count("!")
    return up / (1.0 + up)


def coverage(wanted: frozenset[str], offered: frozenset[str]) -> float:
    """Share of wanted terms that the offered text contains."""
    return len(wanted & offered) / len(wanted) if wanted else 0.0


def comparative_fit(
    wanted: frozenset[str], offered: list[frozenset[str]], floor: float = 0.2
) -> list[float]:
    """How well each offer covers the wanted terms, judged comparatively: a term every offer
    shares tells the offers apart less than one only some of them have, so each wanted term
    weighs ``floor`` plus the share of offers lacking it."""
    if not wanted or not offered:
        return [0.0] * len(offered)
    n = len(offered)
    weight = {t: floor + sum(t not in o for o in offered) / n for t in wanted}
    total = sum(weight.values())
    return [sum(w for t, w in weight.items() if t in o) / total for o in offered]


def similarity(a: str, b: str) -> float:
    """Jaccard similarity of two texts' content terms."""
    ta, tb = terms(a), terms(b)
    return len(ta & tb) / len(ta | tb) if ta or tb else 0.0


def words(text: str, limit: int) -> str:
    """At most ``limit`` words of a text."""
    return " ".join(text.split()[:limit])


_SPLIT = re.compile(r"\s+-\s+|,|\(|\)|\||:")
_USE = re.compile(r"\bfor ([a-z][a-z ]{2,40}?)(?:[.,!;]|$)")


def title_parts(title: str) -> tuple[str, list[str]]:
    """(product kind, attribute phrases) read off a listing title: the kind is the last
    words of the title's head, attributes are the short segments after it."""
    head, *rest = (s.strip() for s in _SPLIT.split(title))
    head_words = [w for w in head.split() if w.lower() not in STOPWORDS]
    kind = " ".join(head_words[-3:]).lower() or head.lower()
    attributes = [s.lower() for s in rest if 0 < len(s.split()) <= 4]
    return kind, attributes


def short_title(title: str, limit: int = 8) -> str:
    return words(_SPLIT.split(title)[0].strip() or title, limit)


def use_phrase(text: str) -> str | None:
    match = _USE.search(text.lower())
    return words(match.group(1), 4) if match else None


def join_words(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]
