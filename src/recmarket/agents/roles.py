"""The bundle of role backends a market runs with. Any role can come from any backend."""

from __future__ import annotations

from dataclasses import dataclass

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
