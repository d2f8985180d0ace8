"""The user agent's offline roles: need structuring, shortlist ranking, reputation update.

None of them sees the target, a policy label or the user's profile: they read the request,
the history, the visible item fields, the platforms' words and, with reputation, the
platforms' claim-reliability records.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from recmarket.agents.contracts import (
    NeedInput,
    RankedItem,
    ReputationRecord,
    Shortlist,
    ShortlistInput,
    StructuredNeed,
    UpdateInput,
)
from recmarket.agents.rules.params import RankerParams
from recmarket.agents.rules.text import (
    CONFIRMATION_CUES,
    CONTRADICTION_CUES,
    DISCLOSURE_CUES,
    GAP_CUES,
    assertiveness,
    comparative_fit,
    confidence,
    count_cues,
    ordered_terms,
    short_title,
    terms,
    title_parts,
    words,
)


@dataclass(frozen=True)
class RuleNeedStructurer:
    """current_need: the request's content words, in order (at most 25); long_term_need:
    the product kinds the history returns to, and how the user rates (at most 30 words)."""

    async def __call__(self, inp: NeedInput, seed: int) -> StructuredNeed:
        current = " ".join(ordered_terms(inp.query_text)[:25])
        kinds = Counter(title_parts(h.title)[0] for h in inp.history)
        if kinds:
            top = [k for k, _ in kinds.most_common(2)]
            liked = np.mean([h.rating for h in inp.history]) >= 4.0
            long_term = f"Returns to {' and '.join(top)}; " + (
                "rates most purchases highly." if liked else "is hard to please."
            )
        else:
            long_term = "No earlier purchases to learn from."
        return StructuredNeed(long_term_need=words(long_term, 30), current_need=current)


def reliability(records: tuple[ReputationRecord, ...], p: RankerParams) -> float:
    """Posterior mean claim reliability: the prior counts as ``prior_strength`` records."""
    total = sum(p.label_scores[r.claim_reliability] for r in records)
    return (p.prior_strength * p.prior_reliability + total) / (p.prior_strength + len(records))


def trust(records: tuple[ReputationRecord, ...], p: RankerParams) -> float:
    """How far to believe a platform's confident wording: 1 with no records (the prior), 0 at
    the pivot reliability, below it down to -scepticism; never above 1, so a good record is
    no bonus, and a bad one weighs only on confident claims."""
    scaled = (reliability(records, p) - p.reliability_pivot) / (
        p.prior_reliability - p.reliability_pivot
    )
    return float(np.clip(scaled, -p.scepticism, 1.0))


@dataclass(frozen=True)
class RuleRanker:
    """Scores each candidate by need coverage of its visible fields, plus the explanation's
    wording confidence (weighted by trust in the platform when records exist), minus
    perceived fit lost to disclosed limitations, plus Gumbel judgement noise; ranks the
    best K with a reason each."""

    params: RankerParams = field(default_factory=RankerParams)

    async def __call__(self, inp: ShortlistInput, seed: int) -> Shortlist:
        p = self.params
        current, long_term = terms(inp.need.current_need), terms(inp.need.long_term_need)
        noise = np.random.default_rng(seed).gumbel(size=len(inp.candidates)) * p.noise
        shown = [terms(f"{c.title} {c.category}") for c in inp.candidates]
        fits = [
            (now + p.long_term_weight * past) / (1 + p.long_term_weight)
            for now, past in zip(
                comparative_fit(current, shown), comparative_fit(long_term, shown), strict=True
            )
        ]
        scored = []
        for c, fit, eps in zip(inp.candidates, fits, noise, strict=True):
            records = inp.histories.get(c.platform_id, ()) if inp.histories is not None else ()
            belief = trust(records, p) if inp.histories is not None else 1.0
            claim = assertiveness(c.explanation)
            disclosed = min(count_cues(c.explanation, DISCLOSURE_CUES), 2)
            score = (
                p.fit_weight * fit
                + p.persuasion_weight * claim * belief
                - p.disclosure_weight * disclosed
                + eps
            )
            scored.append((score, c, fit, claim, disclosed, records, belief))
        scored.sort(key=lambda s: -s[0])
        ranked = tuple(
            RankedItem(
                platform_id=c.platform_id,
                reason=self.reason(
                    c.title, fit, claim, disclosed, records, belief, inp.histories is not None
                ),
            )
            for _, c, fit, claim, disclosed, records, belief in scored[: inp.k]
        )
        return Shortlist(ranked=ranked)

    @staticmethod
    def reason(
        title: str,
        fit: float,
        claim: float,
        disclosed: int,
        records: tuple[ReputationRecord, ...],
        belief: float,
        with_rep: bool,
    ) -> str:
        name = short_title(title, 6)
        parts = [f"{name} covers {round(100 * fit)}% of what you asked for"]
        if claim > 0.3:
            parts.append("and the platform describes it with confidence")
        elif disclosed:
            parts.append("and the platform is candid about its limits")
        text = " ".join(parts) + "."
        if with_rep and records:
            counts = Counter(r.claim_reliability for r in records)
            summary = ", ".join(f"{n} {label}" for label, n in counts.most_common())
            if belief < 0.5 and claim > 0:
                text += (
                    f" Its past claims were often overstated ({summary}), so I discount "
                    "its confident wording."
                )
            else:
                text += f" Its past claims were mostly borne out ({summary})."
        return text


@dataclass(frozen=True)
class RuleUpdater:
    """Judges claim calibration from the explanation and review texts alone: a review that
    contradicts a confident explanation is low; one that voices an expectation gap is
    mixed; one that confirms a disclosed limitation, or simply matches, is high."""

    async def __call__(self, inp: UpdateInput, seed: int) -> ReputationRecord:
        confident = confidence(inp.explanation) > 0.2
        name = short_title(inp.item_title, 5)
        if count_cues(inp.review, CONTRADICTION_CUES):
            label = "low" if confident else "mixed"
            note = f"{name}: review contradicts the explanation's core fit claim."
        elif count_cues(inp.review, GAP_CUES):
            label = "mixed"
            note = f"{name}: worked partly; explanation made the fit sound stronger than it was."
        elif count_cues(inp.review, CONFIRMATION_CUES):
            label = "high"
            note = f"{name}: disclosed limitation confirmed by the review; claims were calibrated."
        else:
            label = "high"
            note = f"{name}: review bears out the explanation's main claims."
        return ReputationRecord(claim_reliability=label, note=words(note, 30))
