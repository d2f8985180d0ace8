"""Per-episode outcome measures (Sections 4.1-4.5, A.6, A.8), computed once and stored."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from recmarket.agents.contracts import Contract, Decision
from recmarket.agents.judgement import Judge
from recmarket.data.domain import Domain
from recmarket.embedding.similarity import visible_text
from recmarket.market.outcome import Outcome, TargetFit
from recmarket.vocabulary import RoleName


class EpisodeMetrics(Contract):
    """An episode's metrics as its row stores them: access, attention and purchase of the
    target, shares by policy, regret and the record written."""

    target_present: bool  # the target is among the submitted candidates (the pool)
    target_copies: int  # how many submitted candidates are the target
    pool_size: int
    target_best_fit: bool  # present and strictly the best noiseless judged fit to the need
    target_shortlisted: bool  # shown to the user (shortlist, or the entered platform's J)
    target_top1: bool
    target_purchased: bool
    any_purchase: bool
    no_purchase: bool
    off_target_purchase: bool
    top1_policy: str | None
    purchased_policy: str | None
    same_item_top1: bool  # the top-1 item was submitted by at least two policy families
    rep_label: str | None  # the claim-reliability label written this episode
    forced_inclusion: bool  # controlled inclusion fired for at least one candidate
    failed_role: RoleName | None  # the role whose failure ended the episode, if any
    top1_platform: str | None = None  # who won the Top-1 position (an entrant's share)
    regret: float | None = None  # best pooled item's worth minus the bought one's (Outcome.regret)
    purchased_platform: str | None = None  # the seat whose proposal was bought
    shown_platforms: str | None = None  # the seats shown, in displayed order, comma-joined
    target_policies: str | None = None  # the families that proposed the target, comma-joined
    top1_item: int | None = None  # the Top-1 item (its index in the domain): where it moved
    # The target's place by noiseless judged fit among the pool's distinct items (1: best;
    # a tie takes the lower place), None where it is not pooled: target_best_fit is rank 1.
    target_fit_rank: int | None = None
    # How far the judged fit of the pooled item closest to the target's lies from it (level
    # scale, noiseless): a rival within half a band is a credible alternative (C.1); None
    # where the target is not pooled or is the pool's only item.
    target_fit_gap: float | None = None
    # The beliefs (market.belief_grid.POINTS) at which the target would be the noiseless
    # Top-1, a hexadecimal bit mask; None where the episode ended before its pool.
    target_top1_grid: str | None = None
    # Where a seat rewrites its listings (market.copy), else None: whether the Top-1 and the
    # bought proposal showed a rewritten listing, and the words the pool's rewritten
    # listings added that their items' own fields do not support.
    top1_rewritten: bool | None = None
    bought_rewritten: bool | None = None
    words_unsupported: int | None = None


# The columns an episode's decision sets, given everything before it.
DECIDED = (
    "target_purchased",
    "any_purchase",
    "no_purchase",
    "off_target_purchase",
    "purchased_policy",
    "purchased_platform",
    "regret",
)


def decided(outcome: Outcome) -> dict[str, Any]:
    """The DECIDED columns of an episode."""
    bought = outcome.purchased
    return {
        "target_purchased": bought is not None and bought.item_index == outcome.target,
        "any_purchase": bought is not None,
        "no_purchase": outcome.decision is not None and bought is None,
        "off_target_purchase": bought is not None and bought.item_index != outcome.target,
        "purchased_policy": bought.policy if bought else None,
        "purchased_platform": bought.platform_id if bought else None,
        "regret": outcome.regret,
    }


def choice_alternatives(outcome: Outcome) -> str | None:
    """Every answer the decision could have given, as JSON columns: ``chance`` and each of
    DECIDED, one entry per answer. The decision is its backend's one draw; these let an
    estimate take its expectation instead (a surrogate's prediction, analysis.choices),
    conditional on everything the episode played before it. Later episodes follow the drawn
    answer, so under reputation this is the expectation of this episode's decision only.
    Chances and regrets are kept to 6 decimals."""
    if outcome.chances is None or outcome.decision is None:
        return None
    columns: dict[str, list[Any]] = {"chance": [], **{c: [] for c in DECIDED}}
    for option_id, chance in outcome.chances:
        answer = Decision.model_construct(option_id=option_id, reason="")
        values = decided(replace(outcome, decision=answer))
        columns["chance"].append(round(chance, 6))
        for column, value in values.items():
            columns[column].append(round(value, 6) if isinstance(value, float) else value)
    return json.dumps(columns, separators=(",", ":"))


def episode_metrics(outcome: Outcome) -> EpisodeMetrics:
    """The metrics of a played episode."""
    target = outcome.target
    copies = sum(p.item_index == target for p in outcome.pool)
    top1 = outcome.shown[0] if outcome.shown else None
    families = {
        p.policy for p in outcome.pool if top1 is not None and p.item_index == top1.item_index
    }
    return EpisodeMetrics(
        target_present=copies > 0,
        target_copies=copies,
        pool_size=len(outcome.pool),
        target_best_fit=outcome.target_fit is not None and outcome.target_fit.rank == 1,
        target_fit_rank=outcome.target_fit.rank if outcome.target_fit else None,
        target_fit_gap=outcome.target_fit.gap if outcome.target_fit else None,
        target_top1_grid=outcome.target_top1_mask,
        target_shortlisted=any(p.item_index == target for p in outcome.shown),
        target_top1=top1 is not None and top1.item_index == target,
        top1_policy=top1.policy if top1 else None,
        same_item_top1=len(families) >= 2,
        rep_label=outcome.record.claim_reliability if outcome.record else None,
        forced_inclusion=any(p.forced for p in outcome.pool),
        failed_role=outcome.failed_role,
        top1_platform=top1.platform_id if top1 else None,
        shown_platforms=",".join(p.platform_id for p in outcome.shown) or None,
        target_policies=",".join(sorted({p.policy for p in outcome.pool if p.item_index == target}))
        or None,
        top1_item=top1.item_index if top1 else None,
        **rewritten(outcome),
        **decided(outcome),
    )


def rewritten(outcome: Outcome) -> dict[str, Any]:
    """The copy columns: None where no pooled proposal came from a seat that rewrites."""
    if not any(p.rewriting for p in outcome.pool):
        return {}
    top1, bought = (outcome.shown[0] if outcome.shown else None), outcome.purchased
    return {
        "top1_rewritten": top1 is not None and top1.listing is not None,
        "bought_rewritten": bought is not None and bought.listing is not None,
        "words_unsupported": sum(p.unsupported for p in outcome.pool),
    }


def target_fit(outcome: Outcome, domain: Domain, judge: Judge) -> TargetFit | None:
    """How the target stands among the pool's distinct items by noiseless judged fit to the
    need (the offline user agent's reading of the current need against the visible title
    and category, whichever backend ranks): how identifiable the request makes its target
    (target_best_fit is rank 1) and how close its nearest rival comes. None where it is not
    pooled or the episode has no need."""
    items = list(dict.fromkeys(p.item_index for p in outcome.pool))
    if outcome.target not in items or outcome.need is None:
        return None
    shown = [domain.items[i].evidence for i in items]
    fits = judge.fit(outcome.need.current_need, [visible_text(e.title, e.category) for e in shown])
    target = items.index(outcome.target)
    others = [float(f) for i, f in enumerate(fits) if i != target]
    return TargetFit(
        rank=1 + sum(1 for f in others if f >= fits[target]),
        gap=min((abs(f - float(fits[target])) for f in others), default=None),
    )


def item_worth(outcome: Outcome, domain: Domain, judge: Judge) -> dict[int, float] | None:
    """Each pooled item's worth to the user, what regret (``Outcome.regret``) is measured
    in: the item's closeness to the held-out target mixed with its rating (the review's
    ``closeness`` experience, noiseless), one scale for every person, so that regret
    compares designs and not how lenient their users are. Measured by the judge whichever
    backend answers; None where the episode ended before the decision."""
    if outcome.decision is None or not outcome.pool:
        return None
    items = domain.items
    target = items[outcome.target].evidence.title

    def worth(index: int) -> float:
        evidence = items[index].evidence
        return judge.merit(judge.closeness(target, evidence.title), evidence.average_rating)

    return {i: worth(i) for i in dict.fromkeys(p.item_index for p in outcome.pool)}
