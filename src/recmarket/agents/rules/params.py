"""Every parameter of the offline behavioural model, with its meaning and default.

The defaults were set once so that magnitudes are plausible on the bundled demo data (for
example, that some users decline to buy); no parameter names a policy, and no outcome of
the paper is an input. Change them in a config file's ``[agents]`` table.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from recmarket.profiles import PROFILE_NAMES


class _Params(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class QueryParams(_Params):
    attribute_reveal: float = Field(
        0.6,
        ge=0,
        le=1,
        description="chance that each target attribute a profile would "
        "mention makes it into the query (below 1 keeps the target non-unique)",
    )
    use_case_from_review: float = Field(
        0.7, ge=0, le=1, description="chance of borrowing a use phrase from the target review"
    )


class RankerParams(_Params):
    fit_weight: float = Field(
        5.0, description="weight of need coverage by title + category, judged comparatively"
    )
    long_term_weight: float = Field(
        0.3, ge=0, description="weight of long-term need terms relative to current ones"
    )
    persuasion_weight: float = Field(
        0.8,
        description="weight of the explanation's assertiveness (confident selling "
        "language, read from the text)",
    )
    disclosure_weight: float = Field(
        0.05, ge=0, description="perceived-fit loss per disclosed limitation (two at most)"
    )
    noise: float = Field(0.3, ge=0, description="scale of Gumbel judgement noise per item")
    prior_reliability: float = Field(
        0.85,
        gt=0,
        le=1,
        description="prior mean claim reliability of a platform with no "
        "records (sparse history is not bad history)",
    )
    prior_strength: float = Field(3.0, gt=0, description="pseudo-records behind the prior")
    reliability_pivot: float = Field(
        0.6,
        ge=0,
        lt=1,
        description="reliability at which a platform's confident wording "
        "stops helping the candidate",
    )
    scepticism: float = Field(
        0.0,
        ge=0,
        le=1,
        description="how far below zero trust may fall under the pivot: 0 "
        "means overstated wording is merely ignored, 1 that it counts fully against",
    )
    label_scores: dict[str, float] = Field(
        {"high": 1.0, "mixed": 0.3, "low": 0.0},
        description="what each claim_reliability label says about reliability",
    )


class ProfileDecision(_Params):
    fit: float = Field(description="weight of query coverage by the option's title + category")
    confidence: float = Field(description="weight of the explanation's wording confidence")
    position: float = Field(description="utility lost per rank below the first")
    outside: float = Field(description="utility of buying nothing")


DEFAULT_DECISION = {
    "transactional_direct": ProfileDecision(fit=3.0, confidence=0.5, position=0.6, outside=0.6),
    "informational_use_case": ProfileDecision(fit=2.6, confidence=0.6, position=0.4, outside=0.5),
    "comparative_evaluation": ProfileDecision(fit=3.0, confidence=0.4, position=0.3, outside=0.7),
    "attribute_constraint": ProfileDecision(fit=3.6, confidence=0.35, position=0.3, outside=1.0),
    "novice_advice": ProfileDecision(fit=2.0, confidence=0.9, position=0.7, outside=0.3),
    "exploratory_hedonic": ProfileDecision(fit=2.0, confidence=0.75, position=0.3, outside=0.2),
}


class DecisionParams(_Params):
    profiles: dict[str, ProfileDecision] = Field(default_factory=lambda: dict(DEFAULT_DECISION))
    reason_relief: float = Field(
        0.5,
        ge=0,
        le=1,
        description="share of an explanation's hedging that still deters the "
        "user when the reason says the platform's past claims were borne out",
    )
    reason_discount: float = Field(
        0.3,
        ge=0,
        le=1,
        description="share of an explanation's confidence the user keeps when "
        "the user agent's reason says its claims were overstated before",
    )

    def for_profile(self, name: str) -> ProfileDecision:
        return self.profiles[name] if name in self.profiles else DEFAULT_DECISION[name]


class ProfileReview(_Params):
    gap_sensitivity: float = Field(description="how strongly an expectation gap is felt")
    match_weight: float = Field(description="weight of closeness to the hoped-for item")


DEFAULT_REVIEW = {
    "transactional_direct": ProfileReview(gap_sensitivity=1.0, match_weight=1.0),
    "informational_use_case": ProfileReview(gap_sensitivity=1.0, match_weight=1.1),
    "comparative_evaluation": ProfileReview(gap_sensitivity=1.1, match_weight=1.0),
    "attribute_constraint": ProfileReview(gap_sensitivity=1.2, match_weight=1.3),
    "novice_advice": ProfileReview(gap_sensitivity=1.4, match_weight=0.8),
    "exploratory_hedonic": ProfileReview(gap_sensitivity=0.7, match_weight=0.7),
}


class ReviewParams(_Params):
    profiles: dict[str, ProfileReview] = Field(default_factory=lambda: dict(DEFAULT_REVIEW))
    quality_weight: float = Field(0.3, description="experience gained per rating star above 4")
    base_experience: float = Field(0.25, description="experience of an unrelated usable item")
    base_expectation: float = Field(0.55, description="expectation set by a neutral explanation")
    confidence_expectation: float = Field(
        0.45, description="expectation added by fully confident wording"
    )
    disclosure_relief: float = Field(
        0.12, ge=0, description="expectation removed per disclosed limitation"
    )
    noise: float = Field(0.12, ge=0, description="scale of normal noise on the experience")
    good_experience: float = Field(0.6, description="experience above which the review is positive")
    poor_experience: float = Field(0.3, description="experience below which it is negative")
    mixed_gap: float = Field(0.1, description="felt gap above which the review voices it")
    broken_gap: float = Field(
        0.45, description="felt gap above which the review says the recommendation did not deliver"
    )

    def for_profile(self, name: str) -> ProfileReview:
        return self.profiles[name] if name in self.profiles else DEFAULT_REVIEW[name]


class OfflineParams(_Params):
    """The offline behavioural model's whole parameter set (``[agents]`` in a config)."""

    query: QueryParams = QueryParams()
    ranker: RankerParams = RankerParams()
    decision: DecisionParams = DecisionParams()
    review: ReviewParams = ReviewParams()


assert set(DEFAULT_DECISION) == set(PROFILE_NAMES) == set(DEFAULT_REVIEW)
