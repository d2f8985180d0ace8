"""Every parameter of the offline behavioural model: its meaning, default, and where the
default comes from.

A default has one of three sources, stated beside it: *first principles* (a scale choice or
a property a sensible reader has, argued in a sentence), *the real samples* (measured on the
Amazon Reviews'23 rows in ``../shared/data/amazon23`` by ``scripts/measure_offline_scales.py``),
or *a cited measurement*. None was set by looking at the outcomes the model produces, and
none comes from the paper's results. ``scripts/docs_tables.py`` writes them, with their
meanings and sources, into docs/running.md; change any of them in a config file's
``[agents]`` table. The simulated user's own tables (request, decision and review) live in
``user_params``, and how a parameter is declared in ``param_fields``.

Levels (fit, claims, experience) share one scale, [0, 1], split by the lexicon into five
bands of 0.2: "one band" is the smallest difference a reader can tell in words.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import model_validator

from recmarket.agents.rules.param_fields import (
    FIRST,
    LABELS,
    PEOPLE,
    REAL,
    ParamTable,
    ordered,
    param,
)
from recmarket.agents.rules.user_params import (
    DEFAULT_DECISION,
    DEFAULT_GAP_SENSITIVITY,
    DecisionParams,
    QueryParams,
    ReviewParams,
)
from recmarket.hashing import ADDED_LATER
from recmarket.profiles import PROFILE_NAMES


class ScaleParams(ParamTable):
    """How cosines of the embedder become levels: a fit level reads 0 for an unrelated item
    of the domain and 1 for an item as close to the request as its own item gets."""

    fit_zero: float = param(
        0.22, "need-to-title cosine of a random item of the domain, median (fit level 0)", REAL
    )
    fit_one: float = param(
        0.74,
        "need-to-title cosine of the item the request was written from, 90th percentile "
        "(fit level 1: as close as a request's own item gets; the median one reads 0.55, "
        "so the best retrieved items still stand apart)",
        REAL,
    )
    closeness_zero: float = param(
        0.32, "title-to-title cosine of two random items of the domain (closeness 0)", REAL
    )
    closeness_one: float = param(1.0, "cosine of an item with itself (closeness 1)", FIRST)
    lexical_share: float = param(
        0.5,
        "weight of visibly shown requested terms, against overall sense, in a fit level: a "
        "careful reader weighs both about equally",
        FIRST,
        ge=0,
        le=1,
    )
    quality_share: float = param(
        0.25,
        "share of quality (the average rating) in a fit-and-quality level; fit is what the "
        "buyer asked about, so it weighs three times as much",
        FIRST,
        ge=0,
        le=1,
    )
    disclosure_relief: float = param(
        0.1,
        "what a reader takes off a claim per limitation the text discloses (half a band: a "
        "named gap tempers what the buyer expects)",
        FIRST,
        ge=0,
    )
    unknown_rating: float = param(
        4.0, "rating assumed where a listing has none: the real items' mean average rating", REAL
    )

    @model_validator(mode="after")
    def _levels_rise(self) -> ScaleParams:
        ordered(("fit_zero", self.fit_zero), ("fit_one", self.fit_one), strict=True)
        ordered(
            ("closeness_zero", self.closeness_zero),
            ("closeness_one", self.closeness_one),
            strict=True,
        )
        return self


class PlatformParams(ParamTable):
    """How an offline platform reads its evidence and how far each policy's claim departs
    from that reading."""

    reading_noise: float = param(
        0.1, "sd of a platform's reading of its evidence (half a band)", FIRST, ge=0
    )
    strict_shading: float = param(
        0.2,
        "Strict claims a level drawn uniformly up to this far below its reading (one band), "
        "however weak the fit: Appendix C.3 has it say a weak or partial match clearly, not "
        "hedge it more",
        FIRST,
        ge=0,
        le=1,
    )
    exaggeration_lift: tuple[float, float] = param(
        (0.0, 0.0),
        "Exaggeration claims a level drawn uniformly this far above its reading whatever the "
        "fit, before its pull (none: Appendix B.2 ties its overclaim to a partial or adjacent "
        "fit, which the pull models; (0.2, 0.5) with no pull is the fit-blind rule used before "
        "issue 45)",
        FIRST,
    )
    exaggeration_pull: tuple[float, float] = param(
        (0.5, 0.7),
        "Exaggeration closes a share drawn uniformly in this range of the distance from its "
        "reading to a perfect claim (Appendix C.3: it converts partial evidence into confident "
        "fit language, a partial fit's band midpoint 0.3 to the confident band's 0.7 is a share "
        "of 0.57, and frames a strong fit as especially strong, 0.7 to 0.9 is 0.67): its "
        "overclaim grows as the fit falls",
        FIRST,
    )

    @model_validator(mode="after")
    def _ranges(self) -> PlatformParams:
        for name in ("exaggeration_lift", "exaggeration_pull"):
            low, high = getattr(self, name)
            ordered((f"{name}'s low end", low), ("its high end", high))
            if low < 0:
                raise ValueError(f"{name}'s low end ({low:g}) must be at least 0")
        if self.exaggeration_pull[1] > 1:
            raise ValueError(
                f"exaggeration_pull's high end ({self.exaggeration_pull[1]:g}) must be at most 1: "
                "a pull beyond a perfect claim"
            )
        return self


class NeedParams(ParamTable):
    """How the user agent reads a long-term need off the history (Appendix C.2: "inferred
    mainly from history")."""

    weighting: Literal["count", "recent-rated"] = param(
        "recent-rated",
        "which product kinds the long-term need names: count, those the history returns to "
        "most often, the oldest first among equals (the rule before issue 51); recent-rated, "
        "each purchase weighing its rating above one star (a 1-star purchase is no need to "
        "return to) halved every half_life purchases back, the newest first among equals",
        FIRST,
    )
    kinds: int = param(3, "how many product kinds the long-term need names", PEOPLE, ge=1, le=8)
    half_life: float = param(
        2.0,
        "purchases back at which a purchase weighs half (recent-rated): a tenth of the "
        "20-interaction history window",
        PEOPLE,
        gt=0,
    )
    store: Annotated[bool, ADDED_LATER] = param(
        True,
        "whether the need names the store the person returns to (recent-rated, where the "
        "data has stores): the one with the most weight, if it sold them two purchases or "
        "more (one purchase is no habit); its name counts as fit where a title carries it "
        "(off until issue 66; on since the need names the newest liked purchase, fitted "
        "with it)",
        PEOPLE,
    )
    price: bool = param(
        True,
        "whether the need states the price level the person pays (where the data has "
        "prices): the weighted median of their purchases' prices; a reader that sees no "
        "prices (the offline ranker) never counts it as fit",
        FIRST,
    )
    recent_liked: int = param(
        1,
        "how many of the newest purchases rated 4 or more the need names by their short "
        "title (the first RECENT_TITLE_WORDS words of the title's head: the brand, line and "
        "kind a centroid of history titles reads, which the kinds alone leave out), newest "
        "first, after the kinds; 0 names none",
        PEOPLE,
        ge=0,
        le=3,
    )


class RankerParams(ParamTable):
    """How the user agent judges candidates and how far it believes their claims, before and
    after records."""

    fit_noise: float = param(
        0.1,
        "sd of the user agent's judgement noise on each candidate's fit level (half a band)",
        FIRST,
        ge=0,
    )
    credence: float = param(
        0.5,
        "share of a claim's distance from the visible evidence believed with no records, by "
        "the user agent and by the user alike (a reason without a word on the record leaves "
        "the user at this prior): a wary reader neither ignores nor swallows an unverified "
        "claim",
        FIRST,
        ge=0,
        le=1,
    )
    prior_records: float = param(
        2.0,
        "pseudo-records behind that prior (sparse history is not bad history): the belief "
        "after records is (prior_records x credence + the labels' credibilities) / "
        "(prior_records + records)",
        FIRST,
        gt=0,
    )
    label_credibility: dict[str, float] = param(
        {"mixed": 0.25, "low": 0.0},
        "how much of a claim's distance from the evidence each label says can be believed "
        "(Appendix C.4): High, past claims were supported or caveated, the prior's credence "
        "and no more where not given (the Rep-only addition: 'High reliability is not a "
        "ranking bonus', so no number of High records raises belief above the prior; "
        "high = 1.0 was the rule before issue 63); Low, a core claim was contradicted, none; "
        "Mixed, a relevant limitation was omitted or understated, a fault smaller than Low's, "
        "so midway between Low and the prior credence. Low < mixed <= credence <= high, so a "
        "High record never lowers belief below the prior and neither a Low nor a Mixed one "
        "raises it",
        FIRST,
    )
    rep_instruction: Annotated[float, ADDED_LATER] = param(
        0.5,
        "share of a claim's believed distance from the evidence the ranker counts when told "
        "the Rep instruction (Appendix C.4's Rep-only addition, under LocalRep and "
        "rep-instruction, records or none: 'separate value supported by visible evidence "
        "from value asserted mainly through the platform's confidence, emphasis, or "
        "wording'). The text asks the reader to set asserted value apart, not to drop it, so "
        "half of it counts: midway between the uninstructed reading (1) and the evidence "
        "alone (0)",
        FIRST,
        ge=0,
        le=1,
    )
    hedges_by_label: Annotated[bool, ADDED_LATER] = param(
        True,
        "whether a record's label bears on a claim below the evidence as on one above it "
        "(Appendix C.4: High, a claim supported or accurately caveated); false: a hedge is "
        "believed fully unless a note says the item turned out better, the rule before issue "
        "45, under which a Low record raised belief in a hedge (a counterfactual: `recmarket "
        "calibrate` fits the labelled rule)",
        FIRST,
    )
    noise: Annotated[Literal["normal", "gumbel"], ADDED_LATER] = param(
        "normal",
        "where judgement noise enters: normal on the reading of fit (the claim's distance is "
        "then taken from the noisy reading), or Gumbel on the whole value, the logit ranker "
        "that `recmarket calibrate` estimates",
        FIRST,
    )
    disclosure_weight: Annotated[float, ADDED_LATER] = param(
        0.0,
        "value added per limitation an explanation discloses (0: a disclosure matters only "
        "through what the claim then promises)",
        FIRST,
    )
    position_weight: Annotated[float, ADDED_LATER] = param(
        0.0,
        "value added from the first to the last place in the candidate list (0: the shuffled "
        "order does not matter to a careful reader)",
        FIRST,
    )
    long_term_weight: float = param(
        0.1,
        "weight of the long-term need in a candidate's judged fit, beside the current need's "
        "(Appendix C.4 ranks with the whole structured understanding; 0: the current need "
        "alone, the rule before issue 51); the need's own template words never count, and "
        "where the current need has no words the long-term one is the whole need",
        PEOPLE,
        ge=0,
        le=1,
    )
    injection_susceptibility: Annotated[float, ADDED_LATER] = param(
        0.0,
        "value added per unit of push of text aimed at the user agent in an explanation "
        "(authority and social-proof cues push 0.25, an instruction 0.5, an override 1; "
        "lexicon.push): a design assumption about the reader, so the offline effect of an "
        "injected explanation follows from it (0: the reader ignores text aimed at it)",
        FIRST,
        ge=0,
        le=1,
    )

    def credibility_of(self, label: str) -> float:
        """A label's credibility: as given, High at the prior credence where not."""
        return self.label_credibility.get(label, self.credence if label == "high" else 0.0)

    @model_validator(mode="after")
    def _belief_is_monotone_in_labels(self) -> RankerParams:
        """Refuse credibilities under which a label would move belief against its meaning."""
        given = self.label_credibility
        if not set(given) <= set(LABELS) or not {"mixed", "low"} <= set(given):
            raise ValueError(
                f"ranker.label_credibility needs the labels mixed and low (and high, which is "
                f"the prior credence where left out), none other; got "
                f"{', '.join(sorted(given)) or 'none'}"
            )
        c = {label: self.credibility_of(label) for label in LABELS}
        if not 0 <= c["low"] < c["mixed"] < c["high"] <= 1:
            raise ValueError(
                "ranker.label_credibility must satisfy 0 <= low < mixed < high <= 1 (a Mixed "
                f"record lies strictly between a Low and a High one); got {c}"
            )
        if not c["mixed"] <= self.credence <= c["high"]:
            raise ValueError(
                f"ranker.credence {self.credence:g} must lie between label_credibility.mixed "
                f"({c['mixed']:g}) and .high ({c['high']:g}): otherwise a High record would lower "
                "belief below the prior, or a Mixed one (a limitation omitted, Appendix C.4) "
                "raise it"
            )
        return self


class UpdaterParams(ParamTable):
    """How large a claim's excess over the experience must be to make a record Mixed or Low."""

    mixed_gap: float = param(
        0.2, "claim over experience (after disclosures) that makes a record mixed: one band", FIRST
    )
    low_gap: float = param(0.4, "claim over experience that makes it low: two bands", FIRST)

    @model_validator(mode="after")
    def _thresholds_in_order(self) -> UpdaterParams:
        ordered(("mixed_gap", self.mixed_gap), ("low_gap", self.low_gap))
        return self


class OfflineParams(ParamTable):
    """The offline behavioural model's whole parameter set (``[agents]`` in a config)."""

    scale: ScaleParams = ScaleParams()
    query: QueryParams = QueryParams()
    need: NeedParams = NeedParams()
    platform: PlatformParams = PlatformParams()
    ranker: RankerParams = RankerParams()
    decision: DecisionParams = DecisionParams()
    review: ReviewParams = ReviewParams()
    update: UpdaterParams = UpdaterParams()


assert set(DEFAULT_DECISION) == set(PROFILE_NAMES) == set(DEFAULT_GAP_SENSITIVITY)
