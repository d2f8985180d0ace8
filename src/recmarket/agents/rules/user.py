"""The simulated user's offline decision and review.

Both read the user's private profile; only the review (after purchase) reads the held-out
target, as the outcome the user hoped for.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from recmarket.agents.contracts import Decision, DecisionInput, Review, ReviewInput, ShownOption
from recmarket.agents.copywriting import unsupported_words
from recmarket.agents.judgement import Judge
from recmarket.agents.rules import lexicon
from recmarket.agents.rules.text import short_title, use_phrase
from recmarket.agents.rules.user_params import DecisionParams, ProfileDecision, ReviewParams
from recmarket.data.items import TITLE_WORD, kind_noun
from recmarket.embedding.similarity import visible_text
from recmarket.profiles import PROFILE_BY_INSTRUCTION
from recmarket.streams import Draws, one_of


def stated_belief(option: ShownOption, prior: float) -> float:
    """How far the user believes the offer's claim: what the user agent's reason says of the
    platform's record (``believed``), or, where it says nothing (no records, or no user
    agent), the prior belief in an unverified claim that the user shares with their agent."""
    return believed(lexicon.CREDIBILITY.read(option.reason) if option.reason else None, prior)


def believed(said: float | None, prior: float) -> float:
    """The belief a user takes from the agent's word on a record (``said``, its band's
    midpoint; None: no word), read against the prior they share: the prior moved by as
    many bands as the word lies from the prior's own band. Words carry only bands, so read
    as a level a word would move a prior that is not a band's midpoint the wrong way (a
    credence of 0.25 lies in the band read as 0.3, so a Low record's "0.3" would raise
    it); read as a move, a record can only move the belief the way its label points, and a
    record that keeps the agent in the prior's band leaves the user at the prior."""
    if said is None:
        return prior
    return lexicon.clamp(prior + (said - lexicon.as_said(prior)))


def offer_utilities(
    options: tuple[ShownOption, ...], fits: np.ndarray, p: ProfileDecision, prior_belief: float
) -> np.ndarray:
    """Each offer's utility: fit to the request as the user reads the visible fields, plus
    the part of the claim's distance from that fit the user feels (scaled by the belief in
    it, ``stated_belief``), less the cost of rank."""
    out = []
    for option, fit in zip(options, fits, strict=True):
        claim = lexicon.CLAIM.read(option.explanation)
        distance = 0.0 if claim is None else claim - lexicon.as_said(float(fit))
        felt = p.claim * stated_belief(option, prior_belief) * distance
        out.append(p.fit * (float(fit) + felt) - p.position * (option.rank - 1))
    return np.array(out)


def product_choice(
    options: tuple[ShownOption, ...], utilities: np.ndarray, outside: float
) -> tuple[list[int], np.ndarray]:
    """Products, not proposals, are the alternatives: offers of the same item (same title
    and category) form one product whose utility is its best offer's, so a second copy of
    an item never adds a second chance to be bought. Returns each product's best offer and
    the choice probabilities over [nothing, product 1, product 2, ...]."""
    best: dict[tuple[str, str], int] = {}
    for i, o in enumerate(options):
        key = (o.title, o.category)
        if key not in best or utilities[i] > utilities[best[key]]:
            best[key] = i
    offers = list(best.values())
    u = np.array([outside, *(utilities[i] for i in offers)])
    probs = np.exp(u - u.max())
    return offers, probs / probs.sum()


def wanted_kind(inp: ReviewInput) -> bool:
    """Whether the bought item is of a kind the person wanted: the hoped-for item's, or
    one their request names. An item whose title names no kind, or a hoped-for item whose
    title names none, counts as wanted: nothing shows it is not."""
    bought, hoped = kind_noun(inp.item.title), kind_noun(inp.target.title)
    if not bought or not hoped or bought == hoped:
        return True
    words = (w.lower().strip(".'-/") for w in TITLE_WORD.findall(inp.query_text))
    return bought in {w.removesuffix("s") for w in words}


def draw_index(gen: np.random.Generator, probs: np.ndarray) -> int:
    """``gen.choice(len(probs), p=probs)``, the same draw from the same state, without the
    checks of ``probs`` that take half its time (they are a softmax's)."""
    cdf = np.cumsum(probs)
    cdf /= cdf[-1]
    return int(cdf.searchsorted(gen.random(), side="right"))


@dataclass(frozen=True)
class RuleDecision:
    """A multinomial logit over the shown products and buying nothing, per profile.
    ``prior_belief`` is the ranker's credence: one prior for agent and user, so that a
    claim the agent says nothing about is believed as far by both."""

    answers_at_once: ClassVar[bool] = True  # no call waits (market/protocol.py)

    judge: Judge
    params: DecisionParams
    prior_belief: float
    draws: Draws = field(default_factory=Draws, repr=False, compare=False)

    def probabilities(self, inp: DecisionInput) -> tuple[list[int], np.ndarray]:
        """The offers (one per product, its best option) and the chance of each, buying
        nothing first."""
        p = self.params.for_profile(PROFILE_BY_INSTRUCTION[inp.instruction].name)
        views = [visible_text(o.title, o.category) for o in inp.options]
        fits = self.judge.fit(inp.query_text, views)
        utilities = offer_utilities(inp.options, fits, p, self.prior_belief)
        return product_choice(inp.options, utilities, p.outside)

    def chances(self, inp: DecisionInput) -> list[tuple[str | None, float]]:
        """Buying nothing, then each product's best offer, with its chance (the
        ``ChoiceChances`` the market records)."""
        offers, probs = self.probabilities(inp)
        ids = [None, *(inp.options[i].option_id for i in offers)]
        return list(zip(ids, probs.tolist(), strict=True))

    async def __call__(self, inp: DecisionInput, seed: int) -> Decision:
        offers, probs = self.probabilities(inp)
        choice = draw_index(self.draws(seed), probs)
        if choice == 0:
            return Decision(option_id=None, reason="None of the options felt right for me.")
        option = inp.options[offers[choice - 1]]
        return Decision(
            option_id=option.option_id, reason=f"{short_title(option.title)} looked best for me."
        )


OPENINGS = (
    "My take on the {name}: {x}.",
    "After using the {name}: {x}.",
    "Verdict on the {name}: {x}.",
)
GAP_FRAMES = ("Compared with the recommendation: {x}.", "As for what I was told: {x}.")
USE_FRAMES = ("I bought it for {use}.", "I wanted it for {use}.", "")


@dataclass(frozen=True)
class RuleReview:
    """Experience: how close the bought item is to the hoped-for one (semantic closeness of
    titles, not shared words), mixed with its quality (rating), plus noise; or, with
    ``experience = "personal"``, the person's own (``stars``), given in stars too. Expectation: the
    level the explanation claimed, less what it disclosed, plus what a rewritten listing
    promised that the item lacks (``promised``). The review reports the experience
    and the felt gap (scaled by the profile's sensitivity) in the lexicon's varied words."""

    answers_at_once: ClassVar[bool] = True  # no call waits (market/protocol.py)

    judge: Judge
    params: ReviewParams
    draws: Draws = field(default_factory=Draws, repr=False, compare=False)

    def experience(self, inp: ReviewInput, gen: np.random.Generator) -> float:
        """The experienced level: the bought item's closeness to the hoped-for one mixed
        with its quality, plus noise."""
        closeness = self.judge.closeness(inp.target.title, inp.item.title)
        level = self.judge.merit(closeness, inp.item.average_rating)
        return lexicon.clamp(level + gen.normal(0, self.params.experience_noise))

    def stars(self, inp: ReviewInput, gen: np.random.Generator) -> float:
        """The personal experience in stars (1-5, not rounded): the person's own rating of
        the hoped-for item as far as the bought one is close to it; beyond that, their
        leniency (their history's mean rating) mixed with the item's known quality, each
        standing in for the other where it is unknown, or, for an item of a kind they did
        not want (``wanted_kind``), the stars of an item that cannot do its job; plus
        noise. Leniency is how a person rates what they chose; it says nothing of what
        they rate a wrong item, which without this would be rated as leniently."""
        p = self.params
        closeness = self.judge.closeness(inp.target.title, inp.item.title)
        known = [h.rating for h in inp.history or ()]
        quality = inp.item.average_rating
        leniency = float(np.mean(known)) if known else quality
        leniency = inp.target.rating if leniency is None else leniency
        quality = leniency if quality is None else quality
        beyond = p.leniency_share * leniency + (1 - p.leniency_share) * quality
        if not wanted_kind(inp):
            beyond = p.wrong_kind_stars
        expected = closeness * inp.target.rating + (1 - closeness) * beyond
        return float(np.clip(expected + gen.normal(0, p.star_noise), 1.0, 5.0))

    def expectation(self, explanation: str, experienced: float) -> float:
        """The level the explanation led the user to expect: its claim less what it
        disclosed (the experience itself where it claimed nothing)."""
        claim = lexicon.CLAIM.read(explanation)
        if claim is None:  # nothing claimed: nothing to fall short of
            return experienced
        relief = self.judge.scale.disclosure_relief * lexicon.count_disclosures(explanation)
        return claim - relief

    def promised(self, inp: ReviewInput) -> float:
        """What a rewritten listing added to the expectation: each word it shows that the
        item's own fields lack is an attribute the user was led to expect and did not get
        (none where the listing is the item's own)."""
        if inp.listing is None:
            return 0.0
        return self.params.unsupported_word_gap * unsupported_words(inp.listing, inp.item)

    async def __call__(self, inp: ReviewInput, seed: int) -> Review:
        gen = self.draws(seed)
        stars = None
        if self.params.experience == "personal":
            felt = self.stars(inp, gen)
            experienced, stars = (felt - 1) / 4, int(np.floor(felt + 0.5))
        else:
            experienced = self.experience(inp, gen)
        sensitivity = self.params.gap_sensitivity.get(inp.profile.name, 1.0)
        expected = self.expectation(inp.explanation, experienced) + self.promised(inp)
        gap = (expected - experienced) * sensitivity
        name = short_title(inp.item.title, 6)
        said = [
            one_of(gen, OPENINGS).format(name=name, x=lexicon.EXPERIENCE.write(experienced, gen)),
            one_of(gen, GAP_FRAMES).format(x=lexicon.GAP.write(lexicon.gap_level(gap), gen)),
        ]
        use = use_phrase(inp.query_text)
        frame = one_of(gen, USE_FRAMES)
        if use and frame:
            said.append(frame.format(use=use))
        return Review(text=" ".join(said), stars=stars)
