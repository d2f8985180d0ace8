"""The simulated user's offline roles: query generation, final decision, review.

All three read the user's private profile card; only query generation (before purchase)
and the review (after it) read the held-out target.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from recmarket.agents.contracts import (
    Decision,
    DecisionInput,
    HeldOutTarget,
    Query,
    QueryInput,
    Review,
    ReviewInput,
)
from recmarket.agents.rules.params import DecisionParams, QueryParams, ReviewParams
from recmarket.agents.rules.text import (
    DISCLOSURE_CUES,
    DISCOUNT_CUES,
    SUPPORT_CUES,
    confidence,
    count_cues,
    coverage,
    join_words,
    short_title,
    similarity,
    terms,
    title_parts,
    use_phrase,
)
from recmarket.profiles import PROFILE_BY_INSTRUCTION

QUERY_TEMPLATES = {
    "transactional_direct": ("Need {kind}{with_attrs}.", "Buying {kind}{with_attrs} today."),
    "informational_use_case": (
        "I want something for {use}; probably {kind}{with_attrs}.",
        "What should I get for {use}? Thinking {kind}{with_attrs}.",
    ),
    "comparative_evaluation": (
        "Looking for {kind}{with_attrs} that balances quality against price.",
        "Which {kind} gives the best trade-off between durability and value{and_attrs}?",
    ),
    "attribute_constraint": (
        "{Kind} that must be {attrs_or_kind}.",
        "Need {kind}; requirements: {attrs_or_kind}.",
    ),
    "novice_advice": (
        "I'm new to this. What is an easy, low-regret {kind} for a beginner?",
        "Beginner here: which {kind} is simple to use and hard to get wrong?",
    ),
    "exploratory_hedonic": (
        "Something fun and satisfying for {use}, maybe {kind} or similar{with_attrs}.",
        "Open to ideas: a {kind} or something like it that feels great{with_attrs}.",
    ),
}


@dataclass(frozen=True)
class RuleQueryGenerator:
    """Writes a plausible pre-purchase request from the held-out target: its product kind,
    some of its attributes (each revealed with a probability, so the request stays
    non-unique), a use phrase from its review, in the profile's style. Never the brand or
    the full title."""

    params: QueryParams = field(default_factory=QueryParams)

    async def __call__(self, inp: QueryInput, seed: int) -> Query:
        gen = np.random.default_rng(seed)
        kind, attributes = title_parts(inp.target.title)
        shown = [a for a in attributes if gen.random() < self.params.attribute_reveal]
        use = None
        if gen.random() < self.params.use_case_from_review:
            use = use_phrase(inp.target.review_text) or use_phrase(inp.target.review_title)
        templates = QUERY_TEMPLATES[inp.profile.name]
        text = templates[int(gen.integers(len(templates)))].format(
            kind=kind,
            Kind=kind[:1].upper() + kind[1:],
            with_attrs=f", {join_words(shown)}" if shown else "",
            and_attrs=f", ideally {join_words(shown)}" if shown else "",
            attrs_or_kind=join_words(shown) if shown else f"a well-reviewed {kind}",
            use=use or "everyday use",
        )
        return Query(query_text=text)


@dataclass(frozen=True)
class RuleDecision:
    """A multinomial logit over the shown options and a no-purchase outside option: utility
    grows with how well the option's title covers the request and with the explanation's
    wording confidence, and falls with rank. Reputation reaches the user only through the
    user agent's reason: when it says the platform overstated before, the user keeps only
    part of the confidence; when it says past claims were borne out, hedged wording deters
    less. Weights and the outside option are per profile."""

    params: DecisionParams = field(default_factory=DecisionParams)

    async def __call__(self, inp: DecisionInput, seed: int) -> Decision:
        p = self.params.for_profile(PROFILE_BY_INSTRUCTION[inp.instruction].name)
        utilities = [p.outside]
        wanted = terms(inp.query_text)
        fits = [coverage(wanted, terms(f"{o.title} {o.category}")) for o in inp.options]
        for option, fit in zip(inp.options, fits, strict=True):
            claim = confidence(option.explanation)
            if option.reason and count_cues(option.reason, DISCOUNT_CUES):
                claim *= self.params.reason_discount
            elif option.reason and count_cues(option.reason, SUPPORT_CUES) and claim < 0:
                claim *= self.params.reason_relief
            utilities.append(p.fit * fit + p.confidence * claim - p.position * (option.rank - 1))
        u = np.array(utilities)
        probs = np.exp(u - u.max())
        choice = int(np.random.default_rng(seed).choice(len(u), p=probs / probs.sum()))
        if choice == 0:
            return Decision(option_id=None, reason="None of the options felt right for me.")
        option = inp.options[choice - 1]
        return Decision(
            option_id=option.option_id,
            reason=f"{short_title(option.title)} looked like the best fit.",
        )


GAP_WORDS = {"novice_advice": "easy to use", "exploratory_hedonic": "exciting"}


@dataclass(frozen=True)
class RuleReview:
    """Compares the experience with the expectation the explanation created.

    Experience: closeness of the purchased item to the hidden hoped-for item, plus the
    item's quality (its rating), plus noise. Expectation: a base, raised by confident
    wording, lowered by each disclosed limitation. A felt gap (expectation above
    experience, scaled by the profile's sensitivity) is voiced; a disclosed limitation that
    the experience confirms is reported as expected."""

    params: ReviewParams = field(default_factory=ReviewParams)

    def experience(
        self, target: HeldOutTarget, inp: ReviewInput, gen: np.random.Generator
    ) -> float:
        r = self.params
        match = similarity(target.title, inp.item.title)
        quality = (inp.item.average_rating or 4.0) - 4.0
        weight = r.for_profile(inp.profile.name).match_weight
        return (
            r.base_experience
            + (1 - r.base_experience) * min(1.0, match * weight)
            + r.quality_weight * quality
            + gen.normal(0, r.noise)
        )

    def expectation(self, explanation: str) -> float:
        r = self.params
        return (
            r.base_expectation
            + r.confidence_expectation * confidence(explanation)
            - r.disclosure_relief * count_cues(explanation, DISCLOSURE_CUES)
        )

    async def __call__(self, inp: ReviewInput, seed: int) -> Review:
        r = self.params
        gen = np.random.default_rng(seed)
        experienced = self.experience(inp.target, inp, gen)
        gap = (self.expectation(inp.explanation) - experienced) * r.for_profile(
            inp.profile.name
        ).gap_sensitivity
        name = short_title(inp.item.title, 6)
        if experienced >= r.good_experience:
            sentences = [f"The {name} works well for what I wanted."]
        elif experienced >= r.poor_experience:
            sentences = [f"The {name} is usable, but it only partly covers what I asked for."]
        else:
            sentences = [f"The {name} did not really suit what I needed."]
        if gap >= r.broken_gap:
            sentences.append("The recommendation promised a perfect fit, but it did not deliver.")
        elif gap >= r.mixed_gap:
            adjective = GAP_WORDS.get(inp.profile.name, "good a fit")
            sentences.append(
                f"It was not quite as {adjective} as the recommendation made it sound."
            )
        elif count_cues(inp.explanation, DISCLOSURE_CUES) and experienced < r.good_experience:
            sentences.append(
                "The listing was upfront about its limits, so that part was no surprise."
            )
        else:
            sentences.append("It matched what the description led me to expect.")
        return Review(text=" ".join(sentences))
