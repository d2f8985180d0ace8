"""The eight role contracts: what each role may see, and what it answers.

Each role is a function from one typed input to one typed output. An input type holds
exactly what the paper lets that role see (Sections 3.1, B.3, Appendix C), so a leak is a
type error: only query generation and the review receive the held-out target; the platform
receives its own policy but no profile and no target status (nor does its copywriter, which
reads its copy strategy, the need and the candidate's own fields); the ranker, the decision
and the updater receive neither target, policy label nor profile label (the decision reads
the user's own private profile instruction, as in Appendix C.5).

Backends (the offline rules, the LLM prompt cards, or another package's own) implement
``Role``; the market never knows which one answers.
"""

from __future__ import annotations

from typing import Annotated, Literal, Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, SerializeAsAny, field_validator

from recmarket.catalogue.listing_copy import CopySetting
from recmarket.catalogue.mechanisms import MechanismName
from recmarket.catalogue.policies import PolicyName
from recmarket.data.items import ItemEvidence
from recmarket.profiles import Profile
from recmarket.vocabulary import RoleName

ClaimReliability = Literal["high", "mixed", "low"]
NOTE_MAX_WORDS = 30


def _absent(value: object) -> bool:
    """Whether an optional field is left out of the serialized input: one that new settings
    added is absent at its default, so inputs made without it serialize as they always did
    (stored calls and call keys hold). Excluded by pydantic-core itself: a wrapping
    serializer that popped the key made every dump of the input go through Python."""
    return value is None


class Contract(BaseModel):
    """Every role input and output: validated, frozen, and no field beyond its own (a leak
    is a validation error)."""

    model_config = ConfigDict(extra="forbid", frozen=True)


# --- shared views -------------------------------------------------------------------------


class PastInteraction(Contract):
    """One observable history entry: the user's own earlier purchase and review, with the
    listing's store and price where the data has them (left out of the JSON otherwise)."""

    title: str
    rating: float
    review_title: str
    review_text: str
    store: str | None = Field(default=None, exclude_if=_absent)
    price: float | None = Field(default=None, exclude_if=_absent)


class HeldOutTarget(PastInteraction):
    """The held-out positive reference: seen before purchase only by query generation, and
    after purchase by the review as the hoped-for outcome. The fields of any reviewed
    purchase; its own type so that the role inputs say which of them may carry it."""


class StructuredNeed(Contract):
    """The user agent's reading of a request (stage 1): the user's long-term need and the
    current one. Platforms search with both; the buyer-side roles judge fit by the current."""

    long_term_need: str
    current_need: str


class ReputationRecord(Contract):
    """One claim-reliability record (stage 4): whether the purchased platform's claim held
    up against the review (high, mixed, low) and a short note why."""

    claim_reliability: ClaimReliability
    note: str

    @field_validator("note")
    @classmethod
    def _short_note(cls, note: str) -> str:
        if len(note.split()) > NOTE_MAX_WORDS:
            raise ValueError(f"note has {len(note.split())} words; at most {NOTE_MAX_WORDS}")
        return note

    @property
    def counted(self) -> float:
        """The record's weight in the reader's sums: 1, unless the memory discounts it."""
        return 1.0


class WeightedRecord(ReputationRecord):
    """A record as a memory that discounts old records shows it (the decay mechanism):
    ``weight`` is how much it still counts."""

    weight: float = Field(gt=0.0, le=1.0)

    @property
    def counted(self) -> float:
        return self.weight


# A record as a role input carries it: a record made in this process is taken as it is (a
# weighted one stays weighted), and one read back from a stored call is weighted where it
# has a weight (the decay mechanism). Tried in this order, a record is one type check
# where a smart union tried both types (about a quarter of the cost: a shortlist input
# carries up to W records of six platforms).
AnyRecord = Annotated[
    SerializeAsAny[ReputationRecord | WeightedRecord], Field(union_mode="left_to_right")
]


# --- stage 1: query generation (user) and need structuring (user agent) ----------------------


class QueryInput(Contract):
    """What the user writes a request from (Appendix C.1): the domain, the user's profile,
    older history and the held-out target (the only pre-purchase role that sees it)."""

    domain: str
    profile: Profile
    history: tuple[PastInteraction, ...]
    target: HeldOutTarget


class Query(Contract):
    """The user's request in their own words."""

    query_text: str


class NeedInput(Contract):
    """What the user agent structures a need from: the user's history and request."""

    history: tuple[PastInteraction, ...]
    query_text: str


# --- stage 2: platform explanation ---------------------------------------------------------


class Listing(Contract):
    """A listing as its platform published it, where the platform rewrote it (a ``copy``
    strategy: ``recmarket.catalogue.listing_copy``): the title the user agent and the user
    read, and the description that backs it. The item's own evidence stays what it is."""

    title: str
    description: str


class CopyInput(Contract):
    """What a platform's copywriter rewrites a candidate's listing from: the seat's copy
    strategy with its parameters, the structured need and the candidate's own evidence;
    never the profile, the target or the other platforms' candidates. Its answer is the
    ``Listing`` the user agent and the user then read."""

    strategy: CopySetting
    need: StructuredNeed
    item: ItemEvidence


class ExplanationInput(Contract):
    """What a platform explains its candidate from (Appendix C.3): its own id and policy,
    the structured need and the candidate's evidence; never the profile or the target."""

    platform_id: str
    policy: PolicyName
    # A multiple of the policy's calibrated distance between claim and reading (offline
    # platforms only); absent at the calibrated 1, so such inputs serialize as they always
    # did and stored calls and call keys hold.
    intensity: float | None = Field(default=None, exclude_if=_absent)
    need: StructuredNeed
    item: ItemEvidence


class Explanation(Contract):
    """The platform's recommendation text, as the user agent and the user read it."""

    text: str


# --- stage 3: shortlist (user agent) ----------------------------------------------------------


class CandidateView(Contract):
    """A proposal as the user agent sees it: the visible item fields and the explanation."""

    platform_id: str
    title: str
    category: str
    explanation: str


class ShortlistInput(Contract):
    """What the user agent ranks from (Appendix C.4): the request, the structured need, the
    shuffled candidates and, under reputation, each platform's records; never a policy."""

    query_text: str
    need: StructuredNeed
    candidates: tuple[CandidateView, ...]
    k: int
    # None under NoRep: the field is absent, not an empty or masked profile (Appendix C.6).
    histories: dict[str, tuple[AnyRecord, ...]] | None = None
    # How the memory weighs the records, when not the paper's window (absent then, so the
    # inputs of window runs serialize as they always did: stored calls and call keys hold).
    mechanism: MechanismName | None = Field(default=None, exclude_if=_absent)


class RankedItem(Contract):
    """One shortlisted platform, with the user agent's reason for the user."""

    platform_id: str
    reason: str


class Shortlist(Contract):
    """The user agent's K ranked candidates, best first."""

    ranked: tuple[RankedItem, ...]


# --- stage 4: decision, review, reputation update -----------------------------------------------


class ShownOption(Contract):
    """One option the user sees: under a user agent a shortlisted proposal with its reason;
    under Platform-Centric one of the entered platform's items (no reason)."""

    option_id: str
    rank: int
    platform_id: str
    title: str
    category: str
    explanation: str
    reason: str | None = None


class DecisionInput(Contract):
    """The user's final choice sees the user's own private profile instruction (Appendix
    C.5), never its label, a policy label or the target."""

    query_text: str
    instruction: str
    options: tuple[ShownOption, ...]
    platform_centric: bool = False


class Decision(Contract):
    """The user's choice among the shown options, or no purchase, with a reason."""

    option_id: str | None = Field(description="the chosen option, or None for no purchase")
    reason: str


class ReviewInput(Contract):
    """What the user reviews a purchase from (Appendix C.6): the request, the profile, the
    hoped-for target, the purchased item's evidence and the explanation it was sold with."""

    query_text: str
    profile: Profile
    target: HeldOutTarget
    item: ItemEvidence
    explanation: str
    # the user's own earlier reviews (how lenient they rate), where the caller gives them
    history: tuple[PastInteraction, ...] | None = Field(default=None, exclude_if=_absent)
    # the listing as the platform rewrote it, where it did: what, beside the explanation,
    # led the user to expect what they did (absent for an unrewritten one, so inputs
    # serialize as they always did)
    listing: Listing | None = Field(default=None, exclude_if=_absent)


class Review(Contract):
    """The user's review of the purchase: words, and stars where the backend gives them."""

    text: str
    stars: int | None = Field(default=None, ge=1, le=5, exclude_if=_absent)


class UpdateInput(Contract):
    """What the user agent turns a review into a record from (Appendix C.6): the request and
    need, the platform, the purchased item, its explanation, the agent's reason and the
    review; never the target, policy or profile."""

    query_text: str
    need: StructuredNeed
    platform_id: str
    item_title: str
    item_category: str
    explanation: str
    reason: str
    review: str


# --- the role interface --------------------------------------------------------------------

In = TypeVar("In", bound=Contract, contravariant=True)
Out = TypeVar("Out", bound=Contract, covariant=True)


class RoleFailure(RuntimeError):
    """A role could not produce a valid output (after any repairs). The episode records the
    failure and stays in every denominator."""

    def __init__(self, role: RoleName, reason: str) -> None:
        super().__init__(f"{role}: {reason}")
        self.role, self.reason = role, reason


class Role(Protocol[In, Out]):
    """One role's backend. ``seed`` keys any randomness the backend needs to a named stream
    of this call, so answers are reproducible and independent of call order."""

    async def __call__(self, inp: In, seed: int) -> Out:
        """Answer one call of the role.

        Args: ``inp``, the role's typed input (all it may see); ``seed``, this call's seed.
        Returns: the role's typed output, valid under its contract.
        Raises: ``RoleFailure`` when no valid answer could be had (the episode ends there
        and is recorded as failed); anything else stops the run as a bug or an
        infrastructure failure."""
        ...


@runtime_checkable
class ChoiceChances(Protocol):
    """A decision backend that can say how likely each answer is (the offline user's logit;
    a model's would need its token probabilities): the market then records every
    alternative's chance beside the one drawn, and a prediction can take the decision's
    expected outcome instead of its one draw (``recmarket.analysis.choices``)."""

    def chances(self, inp: DecisionInput) -> list[tuple[str | None, float]]:
        """Each answer the backend can give to ``inp`` (an option id, or None for no
        purchase) with its probability; answers left out have none, and the chances sum to
        1."""
        ...
