"""The one lexicon through which the offline roles write levels as words and read them back.

Four quantities cross role boundaries as text: how well a platform *claims* an item fits and
serves the request (the explanation), which limitations it *discloses*, how the buyer
*experienced* the item and how that compared with the claim (the review), and how far the
user agent *believes* a platform's claims after its records (the ranker's reason, the
updater's note). Each writer turns a level in [0, 1] into one of several phrasings of that
level's band, chosen by its own seeded draw; each reader finds the phrase and recovers the
band's midpoint. Writers and readers import only this module, so no role searches for a
sentence another module happens to write, and an LLM's free text simply reads as "no level
stated" (the reader's prior applies).

The bands are coarse on purpose: five steps of 0.2 are about what a reader can tell apart
in a sentence, and coarseness is part of what makes a claim a noisy signal.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property, lru_cache

import numpy as np

from recmarket.agents.judgement import clamp
from recmarket.catalogue.payloads import BUILT_IN
from recmarket.streams import one_of

BANDS = 5
BAND_MIDPOINTS = tuple((b + 0.5) / BANDS for b in range(BANDS))


def band(level: float) -> int:
    """The band (0 = lowest) a level in [0, 1] falls in."""
    return min(BANDS - 1, max(0, int(level * BANDS)))


def as_said(level: float) -> float:
    """A level as words can carry it: its band's midpoint. Readers compare a claim with
    their own judgement in these terms, so "excellent" for an item they judge excellent is
    no distance at all."""
    return BAND_MIDPOINTS[band(level)]


def claim_distance(explanation: str, fit: float) -> float:
    """How far an explanation's claimed level lies from a judged fit, as words carry it
    (0 where it claims no level): what a belief in the claim weighs."""
    claim = CLAIM.read(explanation)
    return 0.0 if claim is None else claim - as_said(fit)


READS_KEPT = 8192  # texts whose reading a scale remembers: an explanation is read thrice


@dataclass(frozen=True)
class Scale:
    """Phrasings of one quantity, lowest band first; every phrase belongs to one band."""

    name: str
    phrases: tuple[tuple[str, ...], ...]
    # An explanation is read by the ranker, the user and the updater of its episode.
    _reads: dict[str, float | None] = field(
        default_factory=dict, init=False, repr=False, compare=False, hash=False
    )

    def write(self, level: float, gen: np.random.Generator) -> str:
        """One phrase of the level's band, drawn from ``gen``."""
        options = self.phrases[band(level)]
        return one_of(gen, options)

    def read(self, text: str) -> float | None:
        """The midpoint of the band whose phrase occurs first in the text, or None."""
        reads = self._reads
        if text not in reads:
            if len(reads) >= READS_KEPT:
                reads.clear()
            match = self._pattern.search(text.lower())
            reads[text] = None if match is None else BAND_MIDPOINTS[self._band_of[match.group(0)]]
        return reads[text]

    @cached_property
    def _band_of(self) -> dict[str, int]:
        return {p: b for b, options in enumerate(self.phrases) for p in options}

    @cached_property
    def _pattern(self) -> re.Pattern[str]:
        # Longest phrases first, so that no phrase is read as a shorter one inside it.
        ordered = sorted(self._band_of, key=len, reverse=True)
        return re.compile(r"(?<![a-z])(?:" + "|".join(map(re.escape, ordered)) + r")(?![a-z])")


# --- the explanation: a claim of fit and quality ---------------------------------------------

CLAIM = Scale(
    "claim",
    (
        ("a poor match", "a doubtful fit", "a weak fit"),
        ("a partial match", "only loosely suited", "a limited fit"),
        ("a reasonable match", "a fair fit", "a sensible option"),
        ("a strong match", "a very good fit", "well suited"),
        ("an excellent match", "exactly right", "the ideal pick", "a perfect fit"),
    ),
)

# Enthusiasm that carries no level: selling tone an Exaggeration text adds around its claim.
ENTHUSIASM = (
    "You will love it!",
    "Don't miss it!",
    "A real standout!",
    "Buyers rave about it!",
)

# A disclosed limitation: each template names one thing the evidence does not show.
DISCLOSURES = (
    "the listing does not state {what}",
    "nothing in the listing confirms {what}",
    "there is no mention of {what}",
)
RATING_CAVEAT = "its average rating of {rating} is modest"
RATING_BOAST = ", rated {rating} stars"
THIN_CAVEAT = "there is no mention of detail beyond the feature list"
TRADE_OFF_LEADS = ("One trade-off:", "The main drawback:", "On the other hand,")
# What a listing almost never shows, for a trade-off when nothing requested is missing.
GENERIC_UNKNOWN = "long-term durability"
# The focus of a claim when no requested word is in the evidence.
FOCUS_FALLBACK = "what you asked for"


def disclose(what: str, gen: np.random.Generator) -> str:
    """A sentence that discloses ``what`` the evidence does not show, in one of its
    phrasings."""
    return one_of(gen, DISCLOSURES).format(what=what)


@lru_cache(maxsize=1)
def _disclosure_pattern() -> re.Pattern[str]:
    fixed = [t.split("{")[0].strip() for t in DISCLOSURES]
    fixed.append(RATING_CAVEAT.split("{")[1].split("}")[1].strip())
    return re.compile("|".join(map(re.escape, fixed)))


@lru_cache(maxsize=65536)
def count_disclosures(text: str) -> int:
    """How many limitations a text discloses."""
    return len(_disclosure_pattern().findall(text.lower()))


# --- the review: experience, and how it compared with the claim ------------------------------

EXPERIENCE = Scale(
    "experience",
    (
        ("not what i needed at all", "did not suit me", "a real letdown"),
        ("only partly what i needed", "a so-so fit for me", "falls short for my purpose"),
        ("does the job, more or less", "okay for my purpose", "an average fit for me"),
        ("works well for me", "a good fit for what i needed", "pleased with it"),
        ("exactly what i was hoping for", "everything i wanted", "spot on for me"),
    ),
)

# The gap between what the recommendation led the buyer to expect and what arrived. Bands
# of the signed gap (expected minus experienced), mapped from [-1, 1] onto [0, 1].
GAP = Scale(
    "gap",
    (
        ("far better than the recommendation suggested", "a pleasant surprise overall"),
        ("a bit better than described", "better than i was led to expect"),
        ("about what the recommendation said", "as described", "no surprises"),
        ("not quite as good as promised", "a little oversold", "somewhat weaker than claimed"),
        ("nothing like what was promised", "badly oversold", "the recommendation misled me"),
    ),
)


def gap_level(gap: float) -> float:
    """A signed gap in [-1, 1] as a level on the GAP scale."""
    return (clamp(gap, -1.0, 1.0) + 1.0) / 2.0


def read_gap(text: str) -> float | None:
    """The gap a review reports, on [-1, 1] (below 0: better than claimed), or None."""
    level = GAP.read(text)
    return None if level is None else 2.0 * level - 1.0


# --- the user agent: how far it believes a platform's claims --------------------------------

CREDIBILITY = Scale(
    "credibility",
    (
        ("its past claims did not hold up", "i discount its claims heavily"),
        ("its claims often ran ahead of what arrived", "i discount its claims"),
        ("i take its claims with some caution", "its record is mixed"),
        ("its claims have mostly held up", "its record is fairly good"),
        ("its claims have held up every time", "its record is excellent"),
    ),
)

# Whether a record's claim ran ahead of the experience, matched it, or fell behind it.
DIRECTIONS = {
    "over": ("the claim ran ahead of the experience", "the explanation overstated the fit"),
    "fair": ("the claim matched the experience", "the explanation was accurate"),
    "under": ("the item was better than claimed", "the explanation undersold the item"),
}


def write_direction(direction: str, gen: np.random.Generator) -> str:
    """One phrase saying whether a claim ran ahead of the experience, matched it or fell
    behind."""
    options = DIRECTIONS[direction]
    return one_of(gen, options)


_DIRECTION_OF = {o: d for d, options in DIRECTIONS.items() for o in options}
_DIRECTION = re.compile("|".join(map(re.escape, _DIRECTION_OF)))


@lru_cache(maxsize=65536)
def read_direction(text: str) -> str | None:
    found = _DIRECTION.search(text.lower())
    return None if found is None else _DIRECTION_OF[found.group(0)]


@lru_cache(maxsize=1)
def vocabulary() -> frozenset[str]:
    """Every word the lexicon itself writes: what a text says beyond the item evidence."""
    texts = [p for s in (CLAIM, EXPERIENCE, GAP, CREDIBILITY) for b in s.phrases for p in b]
    texts += [*ENTHUSIASM, *DISCLOSURES, RATING_CAVEAT, RATING_BOAST, THIN_CAVEAT, *TRADE_OFF_LEADS]
    texts += [GENERIC_UNKNOWN, FOCUS_FALLBACK]
    texts += [o for options in DIRECTIONS.values() for o in options]
    return frozenset(re.findall(r"[a-z][a-z'\-]*", " ".join(texts).lower()))


# --- text aimed at the user agent: how hard a text pushes (recmarket.payloads) ---


def push(text: str) -> float:
    """How hard a text pushes the reader it is aimed at: the strongest built-in payload
    family whose cues it carries (0: none)."""
    lowered = text.lower()
    return max(
        (f.push for f in BUILT_IN if any(c in lowered for c in f.cues)),
        default=0.0,
    )
