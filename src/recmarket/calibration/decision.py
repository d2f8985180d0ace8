"""The simulated user's decision as a multinomial logit, per profile.

The offline decision gives each shown offer the utility

    fit x (judged fit + claim x belief x (claim - fit as words carry it)) - position x (rank - 1)

(the belief is what the user agent's reason says of the platform's record, and without a word
on it the prior belief the user shares with the agent, the ranker's credence),
groups offers of one item into a product valued at its best offer, and buys a product or
nothing (utility ``outside``) with logit probabilities. Those four weights are estimated
per profile by maximum likelihood on the stored decisions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from recmarket.agents.rules.params import OfflineParams
from recmarket.agents.rules.user import believed
from recmarket.agents.rules.user_params import DecisionParams, ProfileDecision
from recmarket.calibration.mle import Fitted, fit_parameters
from recmarket.calibration.observations import DecisionObservation

NAMES = ("fit", "claim", "position", "outside")
BOUNDS = {"fit": (0.0, 50.0), "claim": (0.0, 3.0), "position": (-5.0, 5.0), "outside": (-20, 20)}


@dataclass(frozen=True)
class DecisionData:
    """The decision observations as arrays, for the logit's likelihood: each offer's fit,
    felt claim and rank, which offers make each product, and the choice."""

    fit: np.ndarray  # (obs, offers)
    felt: np.ndarray  # belief x distance: the claim's pull before the profile's share of it
    rank: np.ndarray
    products: np.ndarray  # (obs, products, offers): which offers make each product
    choice: np.ndarray  # (obs,): 0 for nothing, else 1 + the bought product

    @classmethod
    def of(cls, observations: Sequence[DecisionObservation], prior_belief: float) -> DecisionData:
        """The observations as arrays, each option's belief read as the simulated user reads
        it (against ``prior_belief``)."""
        m = max(len(o.options) for o in observations)
        fit, felt, rank = (np.zeros((len(observations), m)) for _ in range(3))
        products = np.zeros((len(observations), m, m), dtype=bool)
        choice = np.zeros(len(observations), dtype=int)
        for o, obs in enumerate(observations):
            order: list[tuple[str, str]] = []
            for i, option in enumerate(obs.options):
                fit[o, i], rank[o, i] = option.fit, option.rank
                belief = believed(option.belief, prior_belief)
                felt[o, i] = belief * option.distance
                if option.product not in order:
                    order.append(option.product)
                products[o, order.index(option.product), i] = True
            if obs.chosen is not None:
                choice[o] = 1 + order.index(obs.options[obs.chosen].product)
        return cls(fit, felt, rank, products, choice)

    def _utilities(self, p: dict[str, float]) -> np.ndarray:
        """(obs, 1 + products): nothing, then each product at its best offer."""
        offers = p["fit"] * (self.fit + p["claim"] * self.felt) - p["position"] * (self.rank - 1)
        best = np.where(self.products, offers[:, None, :], -np.inf).max(axis=2)
        outside = np.full((len(best), 1), p["outside"])
        return np.concatenate([outside, best], axis=1)

    def log_likelihood(self, p: dict[str, float]) -> float:
        u = self._utilities(p)
        top = u.max(axis=1, keepdims=True)
        log_sum = np.log(np.exp(u - top).sum(axis=1)) + top[:, 0]
        return float((u[np.arange(len(u)), self.choice] - log_sum).sum())

    def null_log_likelihood(self) -> float:
        """Nothing and every product equally likely."""
        alternatives = 1 + self.products.any(axis=2).sum(axis=1)
        return float(-np.log(alternatives).sum())

    def predicted(self, p: dict[str, float]) -> np.ndarray:
        """The most likely choice of each observation at these parameters."""
        return self._utilities(p).argmax(axis=1)

    def identified(self) -> dict[str, bool]:
        return {
            "fit": True,
            "claim": bool((self.felt != 0).any()),
            "position": bool(np.ptp(self.rank) > 0),
            "outside": True,
        }


def fit_profile(
    observations: Sequence[DecisionObservation], prior: ProfileDecision, prior_belief: float
) -> Fitted:
    """One profile's decision weights, by maximum likelihood from ``prior``."""
    data = DecisionData.of(observations, prior_belief)
    return fit_parameters(data, len(observations), NAMES, prior.model_dump(), BOUNDS)


def fit_decisions(
    observations: Sequence[DecisionObservation], prior: DecisionParams, prior_belief: float
) -> dict[str, Fitted]:
    """One fit per profile that made decisions in the runs; ``prior_belief`` is the ranker's
    credence the fitted table will simulate with."""
    by_profile: dict[str, list[DecisionObservation]] = {}
    for obs in observations:
        by_profile.setdefault(obs.profile, []).append(obs)
    return {
        profile: fit_profile(seen, prior.for_profile(profile), prior_belief)
        for profile, seen in sorted(by_profile.items())
    }


def decision_params(fitted: dict[str, Fitted], prior: DecisionParams) -> DecisionParams:
    """``prior`` with the fitted profiles' weights in place."""
    profiles = dict(prior.profiles)
    for profile, fit in fitted.items():
        profiles[profile] = ProfileDecision(**{e.name: e.value for e in fit.estimates})
    return prior.model_copy(update={"profiles": profiles})


def choice_agreement(observations: Sequence[DecisionObservation], params: OfflineParams) -> float:
    """Share of decisions whose most likely alternative (nothing or a product) under the
    fitted weights is what the user did."""
    hits = 0
    for obs in observations:
        data = DecisionData.of([obs], params.ranker.credence)
        weights = params.decision.for_profile(obs.profile).model_dump()
        hits += int(data.predicted(weights)[0] == data.choice[0])
    return hits / len(observations) if observations else float("nan")
