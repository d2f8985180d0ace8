"""Per-episode outcome measures (Sections 4.1-4.5, A.6, A.8), computed once and stored."""

from __future__ import annotations

from recmarket.agents.contracts import Contract
from recmarket.agents.judgement import Judge
from recmarket.data.domain import Domain
from recmarket.embedding.similarity import visible_text
from recmarket.market.outcome import Outcome
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
    regret: float | None = None  # best pool utility minus the bought one's (Round.regret)
    purchased_platform: str | None = None  # the seat whose proposal was bought
    shown_platforms: str | None = None  # the seats shown, in displayed order, comma-joined
    target_policies: str | None = None  # the families that proposed the target, comma-joined
    top1_item: int | None = None  # the Top-1 item (its index in the domain): where it moved


def episode_metrics(outcome: Outcome) -> EpisodeMetrics:
    """The metrics of a played episode."""
    target = outcome.target
    copies = sum(p.item_index == target for p in outcome.pool)
    top1 = outcome.shown[0] if outcome.shown else None
    bought = outcome.purchased
    families = {
        p.policy for p in outcome.pool if top1 is not None and p.item_index == top1.item_index
    }
    return EpisodeMetrics(
        target_present=copies > 0,
        target_copies=copies,
        pool_size=len(outcome.pool),
        target_best_fit=outcome.target_best_fit,
        target_shortlisted=any(p.item_index == target for p in outcome.shown),
        target_top1=top1 is not None and top1.item_index == target,
        target_purchased=bought is not None and bought.item_index == target,
        any_purchase=bought is not None,
        no_purchase=outcome.decision is not None and bought is None,
        off_target_purchase=bought is not None and bought.item_index != target,
        top1_policy=top1.policy if top1 else None,
        purchased_policy=bought.policy if bought else None,
        same_item_top1=len(families) >= 2,
        rep_label=outcome.record.claim_reliability if outcome.record else None,
        forced_inclusion=any(p.forced for p in outcome.pool),
        failed_role=outcome.failed_role,
        top1_platform=top1.platform_id if top1 else None,
        regret=outcome.regret,
        purchased_platform=bought.platform_id if bought else None,
        shown_platforms=",".join(p.platform_id for p in outcome.shown) or None,
        target_policies=",".join(sorted({p.policy for p in outcome.pool if p.item_index == target}))
        or None,
        top1_item=top1.item_index if top1 else None,
    )


def target_best_fit(outcome: Outcome, domain: Domain, judge: Judge) -> bool:
    """Whether the target is in the pool and strictly the closest item to the need by
    noiseless judged fit (the offline user agent's reading of the current need against the
    visible title and category, whichever backend ranks): how identifiable the request
    makes its target."""
    items = list(dict.fromkeys(p.item_index for p in outcome.pool))
    if outcome.target not in items or outcome.need is None:
        return False
    shown = [domain.items[i].evidence for i in items]
    fits = judge.fit(outcome.need.current_need, [visible_text(e.title, e.category) for e in shown])
    target = items.index(outcome.target)
    return bool(all(fits[target] > f for i, f in enumerate(fits) if i != target))


def regret(outcome: Outcome, domain: Domain, judge: Judge) -> float | None:
    """The user's loss against the best proposal on offer: the utility of the best item in
    the pool minus that of the one bought (nothing bought: nothing gained), where an item's
    utility is the noiseless experience the offline review models, its closeness to the
    held-out target mixed with its rating. Measured by the judge whichever backend answers;
    None where the episode ended before the decision."""
    if outcome.decision is None or not outcome.pool:
        return None
    items = domain.items
    target = items[outcome.target].evidence.title

    def utility(index: int) -> float:
        evidence = items[index].evidence
        return judge.merit(judge.closeness(target, evidence.title), evidence.average_rating)

    best = max(utility(i) for i in {p.item_index for p in outcome.pool})
    bought = outcome.purchased
    return best - (utility(bought.item_index) if bought else 0.0)
