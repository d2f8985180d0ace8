"""The user agent's ranking as a rank-ordered logit (Beggs, Cardell and Hausman 1981).

The offline logit ranker (``ranker.noise = "gumbel"``) values a candidate at

    judged fit + belief x (claim - fit as words carry it)
    + disclosure_weight x disclosures + position_weight x place in the list + Gumbel(0, s),

where the belief in a claim's distance from the evidence is the credence with no records and,
with records, the posterior mean of that prior (worth ``prior_records``) and the label
credibilities of the platform's records (for a claim above the evidence and for a hedge
below it, except that a record whose note says the item turned out better believes no
hedge). It ranks by value, products
before repeated offers of a product. The probability of an observed ranking is then the
product, over its places, of the chosen candidate's logit share among those still
available, which is what is maximised here over every shortlist the runs stored,
shortlisted and passed-over candidates alike.

A parameter the data cannot inform (label credibilities with no records, the credence when
no claim was read, the disclosure weight when no explanation disclosed anything) is held
at its prior value and reported as not identified.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from recmarket.agents.rules import lexicon
from recmarket.agents.rules.params import LABELS, RankerParams
from recmarket.calibration.mle import Fitted, fit_parameters
from recmarket.calibration.observations import RankingObservation

NAMES = (
    "fit_noise",
    "credence",
    "label_credibility.high",
    "label_credibility.mixed",
    "label_credibility.low",
    "prior_records",
    "disclosure_weight",
    "position_weight",
)
BOUNDS = {
    "fit_noise": (1e-3, 10.0),
    "credence": (0.0, 1.0),
    "label_credibility.high": (0.0, 1.0),
    "label_credibility.mixed": (0.0, 1.0),
    "label_credibility.low": (0.0, 1.0),
    "prior_records": (1e-2, 1e3),
    "disclosure_weight": (-2.0, 2.0),
    "position_weight": (-2.0, 2.0),
}


@dataclass(frozen=True)
class RankingData:
    """Every shortlist as padded arrays: observations x candidates (x places)."""

    fit: np.ndarray
    distance: np.ndarray
    disclosures: np.ndarray
    position: np.ndarray
    evidence: np.ndarray  # weighted records of the candidate's platform
    by_label: np.ndarray  # (obs, cand, 3): weighted records with each label
    held: np.ndarray  # (obs, cand, 3): by_label, less records whose notes say "undersold"
    available: np.ndarray  # (obs, places, cand): who can still take each place
    chosen: np.ndarray  # (obs, places): the candidate that took it
    placed: np.ndarray  # (obs, places): whether the observation has that place
    # (obs, cand): the share of believed claim distance counted, rep_instruction where the
    # ranker was told the Rep instruction (its input carried histories), else 1
    asserted: np.ndarray

    @classmethod
    def of(cls, observations: Sequence[RankingObservation], rep_instruction: float) -> RankingData:
        """The ranking observations as arrays (candidates and places padded, with masks of
        what each observation has); ``rep_instruction`` is held fixed, not fitted."""
        n = max(len(o.candidates) for o in observations)
        k = max(len(o.ranked) for o in observations)
        shape = (len(observations), n)
        arrays = {name: np.zeros(shape) for name in ("fit", "distance", "disclosures")}
        position, evidence, asserted = np.zeros(shape), np.zeros(shape), np.ones(shape)
        by_label, held = np.zeros((*shape, 3)), np.zeros((*shape, 3))
        available = np.zeros((len(observations), k, n), dtype=bool)
        chosen = np.zeros((len(observations), k), dtype=int)
        placed = np.zeros((len(observations), k), dtype=bool)
        for o, obs in enumerate(observations):
            for c, cand in enumerate(obs.candidates):
                arrays["fit"][o, c] = cand.fit
                arrays["distance"][o, c] = cand.distance
                arrays["disclosures"][o, c] = cand.disclosures
                position[o, c] = cand.position
                if cand.records is not None:
                    asserted[o, c] = rep_instruction
                for r in cand.records or ():
                    evidence[o, c] += r.counted
                    label = LABELS.index(r.claim_reliability)
                    by_label[o, c, label] += r.counted
                    held[o, c, label] += r.counted * (lexicon.read_direction(r.note) != "under")
            remaining = set(range(len(obs.candidates)))
            taken: set[tuple[str, str]] = set()
            for place, pick in enumerate(obs.ranked):
                product = obs.candidates[pick].product
                fresh = {i for i in remaining if obs.candidates[i].product not in taken}
                pool = remaining if product in taken else fresh  # copies come after products
                available[o, place, sorted(pool)] = True
                chosen[o, place], placed[o, place] = pick, True
                remaining.discard(pick)
                taken.add(product)
        return cls(
            arrays["fit"],
            arrays["distance"],
            arrays["disclosures"],
            position,
            evidence,
            by_label,
            held,
            available,
            chosen,
            placed,
            asserted,
        )

    def values(self, p: dict[str, float]) -> np.ndarray:
        """Each candidate's value (before noise) under parameters ``p``."""
        prior, credence = p["prior_records"], p["credence"]
        credibilities = np.array([p[f"label_credibility.{label}"] for label in LABELS])
        over = (prior * credence + self.by_label @ credibilities) / (prior + self.evidence)
        under = (prior * credence + self.held @ credibilities) / (prior + self.evidence)
        belief = np.where(self.distance > 0, over, under)
        return (
            self.fit
            + self.asserted * belief * self.distance
            + p["disclosure_weight"] * self.disclosures
            + p["position_weight"] * self.position
        )

    def log_likelihood(self, p: dict[str, float]) -> float:
        return self._log_likelihood(self.values(p) / p["fit_noise"])

    def null_log_likelihood(self) -> float:
        """Every available candidate equally likely at every place."""
        return self._log_likelihood(np.zeros_like(self.fit))

    def _log_likelihood(self, utility: np.ndarray) -> float:
        u = np.where(self.available, utility[:, None, :], -np.inf)
        top = u.max(axis=2, keepdims=True)
        top = np.where(np.isfinite(top), top, 0.0)
        log_sum = np.log(np.exp(u - top).sum(axis=2)) + top[..., 0]
        picked = np.take_along_axis(utility, self.chosen, axis=1)
        # a place an observation does not have adds nothing (its log-sum is -inf, and
        # -inf times 0 would make the whole likelihood NaN)
        return float(np.where(self.placed, picked - log_sum, 0.0).sum())

    def identified(self) -> dict[str, bool]:
        claims = self.distance != 0
        with_records = claims & (self.evidence > 0)
        informed = ((self.distance > 0)[..., None] & (self.by_label > 0)) | (
            (self.distance < 0)[..., None] & (self.held > 0)
        )
        return {
            "fit_noise": True,
            "credence": bool(claims.any()),
            **{
                f"label_credibility.{label}": bool(informed[..., i].any())
                for i, label in enumerate(LABELS)
            },
            "prior_records": bool(with_records.any() and (claims & (self.evidence == 0)).any()),
            "disclosure_weight": bool(np.ptp(self.disclosures[self.available.any(axis=1)]) > 0),
            "position_weight": bool(self.available.sum(axis=2).max() > 1),
        }


def prior_values(params: RankerParams) -> dict[str, float]:
    """The ranker's parameters as the fit's starting values, by name."""
    return {
        "fit_noise": params.fit_noise,
        "credence": params.credence,
        **{f"label_credibility.{k}": params.credibility_of(k) for k in LABELS},
        "prior_records": params.prior_records,
        "disclosure_weight": params.disclosure_weight,
        "position_weight": params.position_weight,
    }


def fit_ranker(observations: Sequence[RankingObservation], prior: RankerParams) -> Fitted:
    """The ranker's parameters, by maximum likelihood from ``prior``."""
    data = RankingData.of(observations, prior.rep_instruction)
    return fit_parameters(data, len(observations), NAMES, prior_values(prior), BOUNDS)


def ranker_params(fitted: Fitted, prior: RankerParams) -> RankerParams:
    """The fitted logit ranker as ``[agents.ranker]`` settings, validated as a config file's
    would be (a ValidationError where the fitted belief is not monotone in the labels)."""
    v = {e.name: e.value for e in fitted.estimates}
    return RankerParams.model_validate(
        prior.model_dump()
        | {
            "noise": "gumbel",
            "fit_noise": v["fit_noise"],
            "credence": v["credence"],
            "label_credibility": {k: v[f"label_credibility.{k}"] for k in LABELS},
            "prior_records": v["prior_records"],
            "disclosure_weight": v["disclosure_weight"],
            "position_weight": v["position_weight"],
        }
    )


def top1_agreement(observations: Sequence[RankingObservation], params: RankerParams) -> float:
    """Share of shortlists whose first place is the candidate the fitted ranker values most
    (among distinct products, as it ranks)."""
    data = RankingData.of(observations, params.rep_instruction)
    values = np.where(data.available[:, 0, :], data.values(prior_values(params)), -np.inf)
    return float((values.argmax(axis=1) == data.chosen[:, 0]).mean())
