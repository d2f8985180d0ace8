"""The user agent's offline roles: need structuring, shortlist ranking, reputation update.

None of them sees the target, a policy label or the user's profile: they read the request,
the history, the visible item fields, the platforms' words and, with reputation, the
platforms' claim-reliability records.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from recmarket.agents.contracts import (
    CandidateView,
    ClaimReliability,
    NeedInput,
    PastInteraction,
    RankedItem,
    ReputationRecord,
    Shortlist,
    ShortlistInput,
    StructuredNeed,
    UpdateInput,
)
from recmarket.agents.judgement import Judge
from recmarket.agents.rules import lexicon
from recmarket.agents.rules.params import (
    LABELS,
    NeedParams,
    RankerParams,
    ScaleParams,
    UpdaterParams,
)
from recmarket.agents.rules.text import ordered_terms, short_title, title_parts, words
from recmarket.embedding.similarity import visible_text
from recmarket.streams import Draws

# The long-term need's own words: its template, which a reader of the need never takes for
# a wish (``need_words``).
TEMPLATE = (
    "Returns to {kinds}; ",
    "rates most purchases highly.",
    "is hard to please.",
    "often from {store}; ",
    "usually pays about {price}; ",
    " Lately liked {titles}.",
)
RECENT_TITLE_WORDS = 6  # a short title's words: a brand and a kind fit, a model code rarely
TEMPLATE_WORDS = frozenset(
    w.strip(".;,").lower()
    for t in TEMPLATE
    for w in t.replace("{kinds}", "")
    .replace("{store}", "")
    .replace("{price}", "")
    .replace("{titles}", "")
    .split()
) | {"and"}


def need_words(long_term: str) -> str:
    """A long-term need without its template's words and prices: what a reader of titles
    judges fit by."""
    kept = (w.strip(".;,") for w in long_term.split())
    return " ".join(
        w for w in kept if w and w.lower() not in TEMPLATE_WORDS and not w.startswith("$")
    )


def rated_weights(history: tuple[PastInteraction, ...], p: NeedParams) -> list[float]:
    """Each history entry's weight, oldest first: one each (count), or its rating above one
    star halved every ``half_life`` purchases back (recent-rated)."""
    n = len(history)
    if p.weighting == "count":
        return [1.0] * n
    return [(h.rating - 1) / 4 * 0.5 ** ((n - 1 - i) / p.half_life) for i, h in enumerate(history)]


@dataclass(frozen=True)
class Tally:
    """Weights summed by key over a history, with each key's count and its age (purchases
    back) at its newest and at its oldest entry."""

    score: dict[str, float]
    count: dict[str, int]
    newest: dict[str, int]
    oldest: dict[str, int]


def tally(keys: list[str | None], weights: list[float]) -> Tally:
    """``keys`` and ``weights`` oldest first, one per history entry, tallied newest first
    (so keys come in the order they were last bought); an entry without a key is skipped."""
    t = Tally({}, {}, {}, {})
    for age, (key, weight) in enumerate(zip(reversed(keys), reversed(weights), strict=True)):
        if key is None:
            continue
        t.score[key] = t.score.get(key, 0.0) + weight
        t.count[key] = t.count.get(key, 0) + 1
        t.newest.setdefault(key, age)
        t.oldest[key] = age
    return t


def returned_kinds(history: tuple[PastInteraction, ...], p: NeedParams) -> list[str]:
    """The product kinds the long-term need names (``NeedParams.weighting``)."""
    t = tally([title_parts(h.title)[0] for h in history], rated_weights(history, p))
    if p.weighting == "count":  # the oldest first among equals, as Counter.most_common had it
        order = sorted(t.score, key=lambda k: (-t.score[k], -t.oldest[k]))
    else:
        liked = (k for k in t.score if t.score[k] > 0)
        order = sorted(liked, key=lambda k: (-t.score[k], t.newest[k]))
    return order[: p.kinds]


def returned_store(history: tuple[PastInteraction, ...], weights: list[float]) -> str | None:
    """The store with the most weight among those that sold the person two purchases or
    more (the newest first among equals); None where no store did."""
    stores = [" ".join(h.store.split()) if h.store and h.store.strip() else None for h in history]
    t = tally(stores, weights)
    habits = [s for s in t.score if t.count[s] >= 2 and t.score[s] > 0]
    return min(habits, key=lambda s: (-t.score[s], t.newest[s])) if habits else None


def price_level(history: tuple[PastInteraction, ...], weights: list[float]) -> str | None:
    """The weighted median price of the priced purchases, to two significant figures, in
    dollars; None where none is priced."""
    priced = sorted((h.price, w) for h, w in zip(history, weights, strict=True) if h.price)
    total = sum(w for _, w in priced)
    if not priced or total <= 0:
        return None
    half, seen = total / 2, 0.0
    for price, weight in priced:
        seen += weight
        if seen >= half:
            return f"${float(f'{price:.2g}'):g}"
    return None  # unreachable: the weights reach their total


def recent_liked(history: tuple[PastInteraction, ...], count: int) -> list[str]:
    """The short titles of the ``count`` newest purchases rated 4 or more, newest first."""
    liked = [h for h in reversed(history) if h.rating >= 4.0][:count]
    return [short_title(h.title, RECENT_TITLE_WORDS) for h in liked]


@dataclass(frozen=True)
class RuleNeedStructurer:
    """current_need: the request's content words, in order (at most 25); long_term_need:
    the product kinds the history returns to (``returned_kinds``), where asked the newest
    liked purchases (``recent_liked``), the store it returns to and the price it pays, and
    how the user rates (at most 30 words)."""

    answers_at_once: ClassVar[bool] = True  # no call waits (market/protocol.py)
    params: NeedParams = field(default_factory=NeedParams)

    def long_term(self, history: tuple[PastInteraction, ...]) -> str:
        """The long-term need read off the history."""
        p = self.params
        kinds = returned_kinds(history, p)
        if not kinds:
            return "No earlier purchases to learn from."
        weights = rated_weights(history, p)
        said = TEMPLATE[0].format(kinds=" and ".join(kinds))
        if p.store and (store := returned_store(history, weights)):
            said += TEMPLATE[3].format(store=store)
        if p.price and (price := price_level(history, weights)):
            said += TEMPLATE[4].format(price=price)
        liked = np.mean([h.rating for h in history]) >= 4.0
        said += TEMPLATE[1] if liked else TEMPLATE[2]
        if titles := recent_liked(history, p.recent_liked):  # last: the word cap trims them
            said += TEMPLATE[5].format(titles=" and ".join(titles))
        return said

    async def __call__(self, inp: NeedInput, seed: int) -> StructuredNeed:
        current = " ".join(ordered_terms(inp.query_text)[:25])
        return StructuredNeed(
            long_term_need=words(self.long_term(inp.history), 30), current_need=current
        )


def credibility(records: tuple[ReputationRecord, ...], overstated: bool, p: RankerParams) -> float:
    """How much of a claim's distance from the evidence to believe, given the platform's
    records.

    Each label says how far the platform's claims held up (Appendix C.4: High, supported or
    accurately caveated; Mixed, a limitation omitted or understated; Low, contradicted), in
    whichever direction the current claim departs from the evidence. A claim below the
    evidence (a hedge) is moreover not believed on a record whose note says the item turned
    out better than claimed. Both start from the prior, worth ``prior_records`` records; a
    record never moves a candidate by itself, only through the distance its claim keeps from
    the evidence (Appendix C: reputation is a claim-calibration tool, never a platform
    score). Each record counts with its weight (under the decay mechanism, less the older
    it is), so the belief is the posterior mean of a Beta prior and weighted evidence: with
    no records it is the prior itself.
    """
    if not records:
        return p.credence
    # The same mean, as the prior moved by each record's difference from it: a record that
    # agrees with the prior moves it by exactly nothing, so rounding cannot carry a belief
    # across a band's edge against its label (credence 0.2, High 0.2: 0.19999...).
    moved = evidence = 0.0  # one pass: a shortlist weighs up to W records of six platforms
    for r in records:
        counted = r.counted
        evidence += counted
        labelled = overstated or p.hedges_by_label
        held = p.credibility_of(r.claim_reliability) if labelled else 1.0
        if not overstated and lexicon.read_direction(r.note) == "under":
            held = 0.0
        moved += counted * (held - p.credence)
    return p.credence + moved / (p.prior_records + evidence)


CLAIMS = {"overclaim": True, "hedge": False}  # a claim above the evidence, or below it


def belief_after(labels: Sequence[str], claim: str, params: RankerParams) -> float:
    """The ranker's belief in a claim (``CLAIMS``) from a platform with these records, oldest
    first, each counted once and with no note on the claim's direction (``credibility``):
    the prior with none."""
    if claim not in CLAIMS:
        raise ValueError(f"unknown claim {claim!r}; known: {', '.join(CLAIMS)}")
    unknown = sorted({label for label in labels if label not in LABELS})
    if unknown:
        raise ValueError(
            f"unknown record label(s) {', '.join(map(repr, unknown))}; known: {', '.join(LABELS)}"
        )
    records = tuple(
        ReputationRecord.model_validate({"claim_reliability": label, "note": ""})
        for label in labels
    )
    return credibility(records, CLAIMS[claim], params)


@dataclass(frozen=True)
class Judged:
    """A candidate as the ranker judged it: its evidence-calibrated value and the belief its
    records earned."""

    candidate: CandidateView
    value: float  # evidence-calibrated value: judged fit plus the believed claim distance
    belief: float | None  # credibility applied, when the platform has records


def need_fit(
    judge: Judge, need: StructuredNeed, views: list[str], long_term_weight: float
) -> np.ndarray:
    """The noiseless fit of each view to the whole structured understanding (Appendix
    C.4): the current need's, mixed with the long-term need's (its template words left
    out) at ``long_term_weight``; where the request says nothing the history is the whole
    need. The calibration reads fit this way too, so it fits the ranker that ranked."""
    fits = judge.fit(need.current_need, views)
    if w := long_term_weight:
        if not need.current_need.strip():
            w = 1.0
        fits = (1 - w) * fits + w * judge.fit(need_words(need.long_term_need), views)
    return fits


@dataclass(frozen=True)
class RuleRanker:
    """Values each candidate by its judged fit (the embedder's closeness of the need, the
    current one mixed with the long-term one at ``long_term_weight``, to the visible title
    and category, with judgement noise) plus the believed part of its claim's
    distance from that fit (under the Rep instruction, the ``rep_instruction`` share of
    it: value asserted by wording is set apart from value the evidence shows); ranks
    products, not proposals: a product offered by several
    platforms takes one place, by its best offer, and copies fill the shortlist only when
    there are fewer distinct products than K."""

    answers_at_once: ClassVar[bool] = True  # no call waits (market/protocol.py)

    judge: Judge
    params: RankerParams
    draws: Draws = field(default_factory=Draws, repr=False, compare=False)

    def judged(self, inp: ShortlistInput, gen: np.random.Generator) -> list[Judged]:
        """Each candidate's value. With normal noise the fit reading is noisy and the claim
        is compared with it; with Gumbel noise (the logit ranker) the claim is compared with
        the noiseless reading and the noise is added to the whole value."""
        p, n = self.params, len(inp.candidates)
        views = [visible_text(c.title, c.category) for c in inp.candidates]
        fits = need_fit(self.judge, inp.need, views, p.long_term_weight)
        noise = gen.normal(0, p.fit_noise, n) if p.noise == "normal" else np.zeros(n)
        fits = fits + noise
        extra = gen.gumbel(0, p.fit_noise, n) if p.noise == "gumbel" else np.zeros(n)
        last = max(n - 1, 1)
        # Told the Rep instruction wherever the input carries histories, empty or not.
        asserted = p.rep_instruction if inp.histories is not None else 1.0
        out = []
        for i, (c, fit) in enumerate(zip(inp.candidates, fits, strict=True)):
            distance = lexicon.claim_distance(c.explanation, float(fit))
            records = inp.histories.get(c.platform_id, ()) if inp.histories is not None else ()
            belief = credibility(records, distance > 0, p)
            value = float(fit) + asserted * belief * distance + float(extra[i])
            if p.disclosure_weight:
                value += p.disclosure_weight * lexicon.count_disclosures(c.explanation)
            if p.position_weight:
                value += p.position_weight * i / last
            if p.injection_susceptibility:
                value += p.injection_susceptibility * lexicon.push(c.explanation)
            out.append(Judged(c, value, belief if records else None))
        return out

    async def __call__(self, inp: ShortlistInput, seed: int) -> Shortlist:
        gen = self.draws(seed)
        judged = sorted(self.judged(inp, gen), key=lambda j: -j.value)
        seen: set[tuple[str, str]] = set()
        firsts: list[Judged] = []
        copies: list[Judged] = []
        for j in judged:
            product = (j.candidate.title, j.candidate.category)
            (copies if product in seen else firsts).append(j)
            seen.add(product)
        chosen = (firsts + copies)[: inp.k]
        return Shortlist(
            ranked=tuple(
                RankedItem(platform_id=j.candidate.platform_id, reason=self.reason(j, gen))
                for j in chosen
            )
        )

    @staticmethod
    def reason(j: Judged, gen: np.random.Generator) -> str:
        """The user-visible reason: the agent's reading of the candidate and, with records,
        its belief in the platform's claims, in the lexicon's words."""
        name = short_title(j.candidate.title, 6)
        text = f"My reading: {name} is {lexicon.CLAIM.write(j.value, gen)} for your request."
        if j.belief is not None:
            text += f" From its record, {lexicon.CREDIBILITY.write(j.belief, gen)}."
        return text


@dataclass(frozen=True)
class RuleUpdater:
    """Reads the level the explanation claimed and the experience the review reports, both
    through the lexicon, and labels the record by the gap between them: a claim that the
    experience fell one band short of (after what the explanation disclosed) is mixed, two
    bands short is low, otherwise high. The note says which way the claim erred."""

    answers_at_once: ClassVar[bool] = True  # no call waits (market/protocol.py)

    scale: ScaleParams
    params: UpdaterParams
    draws: Draws = field(default_factory=Draws, repr=False, compare=False)

    async def __call__(self, inp: UpdateInput, seed: int) -> ReputationRecord:
        p = self.params
        claim = lexicon.CLAIM.read(inp.explanation)
        experience = lexicon.EXPERIENCE.read(inp.review)
        if claim is not None and experience is not None:
            expected = claim - self.scale.disclosure_relief * lexicon.count_disclosures(
                inp.explanation
            )
            gap = round(expected - experience, 6)  # band midpoints: keep 0.2 exactly 0.2
        else:  # no level stated on one side: take the review's own word on the gap
            gap = lexicon.read_gap(inp.review) or 0.0
        label: ClaimReliability = (
            "low" if gap >= p.low_gap else "mixed" if gap >= p.mixed_gap else "high"
        )
        direction = "over" if gap >= p.mixed_gap else "under" if gap <= -p.mixed_gap else "fair"
        gen = self.draws(seed)
        note = f"{short_title(inp.item_title, 6)}: {lexicon.write_direction(direction, gen)}."
        return ReputationRecord(claim_reliability=label, note=words(note, 30))
