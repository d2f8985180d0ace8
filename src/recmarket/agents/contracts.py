"""The seven role contracts: what each role may see, and what it answers.

Each role is a function from one typed input to one typed output. An input type holds
exactly what the paper lets that role see (Sections 3.1, B.3, Appendix C), so a leak is a
type error: only query generation and the review receive the held-out target; the platform
receives its own policy but no profile and no target status; the ranker, the decision and
the updater receive neither target, policy label nor profile label (the decision reads the
user's own private profile instruction, as in Appendix C.5).

Backends (offline rules now, LLMs later) implement ``Role``; the market never knows which
one answers.
"""

from __future__ import annotations

from typing import Literal, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict, Field, SerializeAsAny, field_validator

from recmarket.data.items import ItemEvidence
from recmarket.policies import PolicyName
from recmarket.profiles import Profile
from recmarket.vocabulary import Mechanism

ClaimReliability = Literal["high", "mixed", "low"]
NOTE_MAX_WORDS = 30


def _absent(value: object) -> bool:
    """Whether an optional field is left out of the serialized input: one that new settings
    added is absent at its default, so inputs made without it serialize as they always did
    (stored calls and call keys hold). Excluded by pydantic-core itself: a wrapping
    serializer that popped the key made every dump of the input go through Python."""
    return value is None


class Contract(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# --- shared views -------------------------------------------------------------------------


class PastInteraction(Contract):
    """One observable history entry: the user's own earlier purchase and review."""

    title: str
    rating: float
    review_title: str
    review_text: str


class HeldOutTarget(PastInteraction):
    """The held-out positive reference: seen before purchase only by query generation, and
    after purchase by the review as the hoped-for outcome. The fields of any reviewed
    purchase; its own type so that the role inputs say which of them may carry it."""


class StructuredNeed(Contract):
    long_term_need: str
    current_need: str


class ReputationRecord(Contract):
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


# --- stage 1: query generation (user) and need structuring (user agent) ----------------------


class QueryInput(Contract):
    domain: str
    profile: Profile
    history: tuple[PastInteraction, ...]
    target: HeldOutTarget


class Query(Contract):
    query_text: str


class NeedInput(Contract):
    history: tuple[PastInteraction, ...]
    query_text: str


# --- stage 2: platform explanation ---------------------------------------------------------


class ExplanationInput(Contract):
    platform_id: str
    policy: PolicyName
    # A multiple of the policy's calibrated distance between claim and reading (offline
    # platforms only); absent at the calibrated 1, so such inputs serialize as they always
    # did and stored calls and call keys hold.
    intensity: float | None = Field(default=None, exclude_if=_absent)
    need: StructuredNeed
    item: ItemEvidence


class Explanation(Contract):
    text: str


# --- stage 3: shortlist (user agent) ----------------------------------------------------------


class CandidateView(Contract):
    """A proposal as the user agent sees it: the visible item fields and the explanation."""

    platform_id: str
    title: str
    category: str
    explanation: str


class ShortlistInput(Contract):
    query_text: str
    need: StructuredNeed
    candidates: tuple[CandidateView, ...]
    k: int
    # None under NoRep: the field is absent, not an empty or masked profile (Appendix C.6).
    histories: dict[str, tuple[SerializeAsAny[WeightedRecord | ReputationRecord], ...]] | None = (
        None  # weighted records (the decay mechanism) read back as such from stored calls
    )
    # How the memory weighs the records, when not the paper's window (absent then, so the
    # inputs of window runs serialize as they always did: stored calls and call keys hold).
    mechanism: Mechanism | None = Field(default=None, exclude_if=_absent)


class RankedItem(Contract):
    platform_id: str
    reason: str


class Shortlist(Contract):
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
    option_id: str | None = Field(description="the chosen option, or None for no purchase")
    reason: str


class ReviewInput(Contract):
    query_text: str
    profile: Profile
    target: HeldOutTarget
    item: ItemEvidence
    explanation: str


class Review(Contract):
    text: str


class UpdateInput(Contract):
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

    def __init__(self, role: str, reason: str) -> None:
        super().__init__(f"{role}: {reason}")
        self.role, self.reason = role, reason


class Role(Protocol[In, Out]):
    """One role's backend. ``seed`` keys any randomness the backend needs to a named stream
    of this call, so answers are reproducible and independent of call order."""

    async def __call__(self, inp: In, seed: int) -> Out: ...
