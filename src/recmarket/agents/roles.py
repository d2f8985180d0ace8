"""The bundle of role backends a market runs with. Any role can come from any backend."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import get_args, get_type_hints

from recmarket.agents.contracts import (
    Decision,
    DecisionInput,
    Explanation,
    ExplanationInput,
    NeedInput,
    Query,
    QueryInput,
    ReputationRecord,
    Review,
    ReviewInput,
    Role,
    Shortlist,
    ShortlistInput,
    StructuredNeed,
    UpdateInput,
)


@dataclass(frozen=True)
class Agents:
    query: Role[QueryInput, Query]
    need: Role[NeedInput, StructuredNeed]
    explain: Role[ExplanationInput, Explanation]
    shortlist: Role[ShortlistInput, Shortlist]
    decide: Role[DecisionInput, Decision]
    review: Role[ReviewInput, Review]
    update: Role[UpdateInput, ReputationRecord]


# Each role's (input, output) contract types, read off the bundle so they cannot diverge.
ROLE_TYPES: dict[str, tuple[type, type]] = {
    f.name: get_args(get_type_hints(Agents)[f.name]) for f in fields(Agents)
}
