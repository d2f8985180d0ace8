"""The platform's offline role: a claim about its candidate, made from its own noisy reading
of the evidence under its presentation policy (Table 5).

The platform reads how well its item's evidence (listing text and rating) serves the need,
with noise: a merit level. Its policy's claim rule turns the reading into the level it
claims, and its wording says what follows the claim. Strict claims at or below its reading
and names what the evidence does not show; Balanced claims its reading and names one
trade-off; Exaggeration claims above its reading, adds enthusiasm and leaves limitations
out; an installed policy says what it does through the same two objects
(``recmarket.catalogue.policies``). The level becomes words through the lexicon, so two explanations
of one policy claim different levels when the platform read their evidence differently.
Every policy names only terms that the evidence contains, except where a candid policy says
a requested term is *not* stated.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import ClassVar

import numpy as np

from recmarket.agents.contracts import Explanation, ExplanationInput
from recmarket.agents.judgement import Judge
from recmarket.agents.rules import lexicon
from recmarket.agents.rules.params import PlatformParams
from recmarket.agents.rules.text import join_words, ordered_terms, short_title, words
from recmarket.agents.words import stem, terms
from recmarket.catalogue.policies import PresentationPolicy, Wording, policy
from recmarket.data.items import ItemEvidence
from recmarket.streams import Draws, one_of


def beyond_listing_text(item: ItemEvidence) -> str:
    """What the platform may cite besides the listing text a retriever embeds."""
    rating = f"{item.average_rating:.1f}" if item.average_rating is not None else ""
    return " ".join((*item.features, rating))


# Items whose reading is kept: the ones pools keep proposing. Few, since a kept item (and
# its terms) stays in memory, and a long run meets hundreds of thousands of items.
ITEMS_KEPT = 4096


@lru_cache(maxsize=ITEMS_KEPT)
def offered_terms(item: ItemEvidence) -> frozenset[str]:
    """The terms of everything the platform may cite, read once per item (an item is
    explained in many episodes): those of its listing text (which its reading of fit has
    read already) and of the rest, since no term spans two parts."""
    return terms(item.text()) | terms(beyond_listing_text(item))


@lru_cache(maxsize=ITEMS_KEPT)
def wanted_terms(need_text: str) -> tuple[tuple[str, str, bool], ...]:
    """The need's words in order, each with its stem and whether it is a number: read once
    for the N platforms that explain a candidate for the same need."""
    return tuple((w, stem(w), w.isdigit()) for w in ordered_terms(need_text))


def need_split(need_text: str, item: ItemEvidence) -> tuple[list[str], list[str]]:
    """The need's words the evidence supports, and those it does not state."""
    offered = offered_terms(item)
    matched: list[str] = []
    missing: list[str] = []
    for word, stemmed, number in wanted_terms(need_text):
        if stemmed in offered:
            matched.append(word)
        elif not number:
            missing.append(word)
    return matched, missing


@lru_cache(maxsize=ITEMS_KEPT)
def best_fact(item: ItemEvidence) -> str | None:
    """The first feature bullet, else the description's first sentence (short)."""
    if item.features:
        return words(item.features[0], 12)
    if item.description:
        return words(item.description.split(". ")[0].rstrip("."), 14)
    return None


def limitations(item: ItemEvidence, missing: list[str], gen: np.random.Generator) -> list[str]:
    """What a candid platform can truthfully say the evidence does not show, most relevant
    first: requested terms it does not state, a modest rating, thin listing text."""
    out = [lexicon.disclose(w, gen) for w in missing[:2]]
    if item.average_rating is not None and item.average_rating < 4.0:
        out.append(lexicon.RATING_CAVEAT.format(rating=f"{item.average_rating:.1f}"))
    if item.description_source != "description":
        out.append(lexicon.THIN_CAVEAT)
    return out or [lexicon.disclose(lexicon.GENERIC_UNKNOWN, gen)]


def claimed_level(
    chosen: PresentationPolicy,
    reading: float,
    p: PlatformParams,
    gen: np.random.Generator,
    intensity: float = 1.0,
) -> float:
    """The level claimed, on the lexicon's scale: ``intensity`` scales how far the policy's
    rule takes it from the reading (an adaptive platform's choice within its policy)."""
    return lexicon.clamp(chosen.claimed(reading, gen, intensity, p))


def with_payload(text: str, wording: Wording) -> str:
    """The explanation with its policy's payload, if any, appended."""
    return f"{text} {wording.payload}" if wording.payload else text


@dataclass(frozen=True)
class RuleExplainer:
    """The offline platform: reads its evidence for the need (fit and quality, with its own
    noise), claims a level as its policy's rule departs from that reading, and words the
    explanation after the policy (limitations named, a trade-off, or a sell)."""

    answers_at_once: ClassVar[bool] = True  # no call waits (market/protocol.py)
    judge: Judge
    params: PlatformParams
    draws: Draws = field(default_factory=Draws, repr=False, compare=False)

    def reading(self, inp: ExplanationInput, gen: np.random.Generator) -> float:
        """The platform's own noisy reading of how well its evidence serves the need."""
        fit = self.judge.fit_one(inp.need.current_need, inp.item.text())
        merit = self.judge.merit(fit, inp.item.average_rating)
        return merit + gen.normal(0, self.params.reading_noise)

    async def __call__(self, inp: ExplanationInput, seed: int) -> Explanation:
        gen = self.draws(seed)
        item, chosen = inp.item, policy(inp.policy)
        intensity = 1.0 if inp.intensity is None else inp.intensity
        level = claimed_level(chosen, self.reading(inp, gen), self.params, gen, intensity)
        matched, missing = need_split(inp.need.current_need, item)
        focus = join_words(matched[:2]) if matched else lexicon.FOCUS_FALLBACK
        claim = f"{short_title(item.title)} is {lexicon.CLAIM.write(level, gen)} for {focus}"
        fact = best_fact(item)
        wording = chosen.wording
        if wording.sells:
            boast = ""
            if item.average_rating is not None and item.average_rating >= 4.3:
                boast = lexicon.RATING_BOAST.format(rating=f"{item.average_rating:.1f}")
            enthusiasm = one_of(gen, lexicon.ENTHUSIASM)
            return Explanation(text=with_payload(f"{claim}{boast}! {enthusiasm}", wording))
        said = [f"{claim}: {fact}." if fact else f"{claim}."]
        limits = limitations(item, missing, gen)
        if wording.limitations:
            said += [f"{lim[0].upper()}{lim[1:]}." for lim in limits[: wording.limitations]]
        else:  # one trade-off
            lead = one_of(gen, lexicon.TRADE_OFF_LEADS)
            said.append(f"{lead} {limits[0]}.")
        return Explanation(text=with_payload(" ".join(said), wording))
