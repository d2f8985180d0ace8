"""The platform: claims from a noisy reading of the evidence, shaped by the policy."""

import asyncio
import itertools

import numpy as np
import pytest

from recmarket.agents.contracts import ExplanationInput, StructuredNeed
from recmarket.agents.rules import lexicon
from recmarket.agents.rules.params import PlatformParams
from recmarket.agents.rules.platform import RuleExplainer, claimed_level, offered_terms
from recmarket.agents.words import terms
from recmarket.catalogue.policies import BALANCED, EXAGGERATION, PAPER_POLICIES, STRICT

NEEDS = (
    "lightweight waterproof tent camping trips",
    "red kettlebell 25 lb",
    "yoga mat cork",
    "carbon fiber trekking poles twist lock",
)


def evidence_text(e) -> str:
    """Everything a platform may cite, as one text: listing text, features and rating."""
    rating = f"{e.average_rating:.1f}" if e.average_rating is not None else ""
    return " ".join((e.title, e.category, e.description, *e.features, rating))


def test_an_items_offered_terms_are_those_of_all_its_evidence(domain) -> None:
    """Read as the listing text's terms and the rest's (the listing's are read for fit
    anyway): the same terms as the whole evidence read at once."""
    for item in domain.items:
        assert offered_terms(item.evidence) == terms(evidence_text(item.evidence))


def explain(explainer, item, policy, need=NEEDS[0], seed=7) -> str:
    inp = ExplanationInput(
        platform_id="P1",
        policy=policy,
        item=item.evidence,
        need=StructuredNeed(long_term_need="", current_need=need),
    )
    return asyncio.run(explainer(inp, seed)).text


@pytest.fixture(scope="module")
def explainer(judge):
    return RuleExplainer(judge, PlatformParams())


@pytest.mark.parametrize("policy", PAPER_POLICIES)
def test_explanations_never_claim_an_attribute_the_evidence_lacks(
    explainer, domain, policy
) -> None:
    for item in domain.items[:150]:
        for need in NEEDS:
            text = explain(explainer, item, policy, need)
            extra = (
                terms(text)
                - terms(" ".join(lexicon.vocabulary()))
                - terms(evidence_text(item.evidence))
            )
            if policy == "exaggeration":
                assert not extra, (text, extra)
            else:  # candid policies may name a requested term only to say it is not shown
                assert extra <= terms(need), (text, extra)
                if extra:
                    assert lexicon.count_disclosures(text) > 0, text


def test_the_policy_sets_the_claim_against_the_reading() -> None:
    p, gen = PlatformParams(), np.random.default_rng(0)
    for reading in np.linspace(0.1, 0.9, 9):
        assert reading - p.strict_shading <= claimed_level(STRICT, reading, p, gen) <= reading
        assert claimed_level(BALANCED, reading, p, gen) == pytest.approx(reading)
        least, most = (pull * (1 - reading) for pull in p.exaggeration_pull)
        assert reading + least <= claimed_level(EXAGGERATION, reading, p, gen) <= reading + most


def mean_excess(chosen, reading: float, p: PlatformParams, draws: int = 400) -> float:
    gen = np.random.default_rng(11)
    return float(np.mean([claimed_level(chosen, reading, p, gen) - reading for _ in range(draws)]))


def test_exaggerations_overclaim_grows_as_the_reading_falls_and_stricts_does_not() -> None:
    """Appendix B.2: Exaggeration makes "a partial or adjacent fit sound more certain", so
    its excess is largest where fit is poor; Strict says a weak fit clearly (readings from
    its shading up, where a claim is not held at the scale's floor)."""
    p = PlatformParams()
    readings = np.linspace(p.strict_shading, 0.95, 8)
    exaggeration = [mean_excess(EXAGGERATION, r, p) for r in readings]
    strict = [mean_excess(STRICT, r, p) for r in readings]
    assert all(a > b for a, b in itertools.pairwise(exaggeration))
    assert exaggeration[0] - exaggeration[-1] > 0.2
    assert max(strict) - min(strict) < 0.02  # flat: the same shading at every fit


def test_the_fit_blind_lift_is_a_setting_of_the_same_rule() -> None:
    """With a flat lift and no pull (the rule before issue 45) the excess does not depend on
    the reading: the counterfactual that measures what the pull changes."""
    blind = PlatformParams(exaggeration_lift=(0.2, 0.5), exaggeration_pull=(0.0, 0.0))
    assert mean_excess(EXAGGERATION, 0.2, blind) == pytest.approx(
        mean_excess(EXAGGERATION, 0.45, blind), abs=1e-9
    )


def test_in_words_exaggeration_overclaims_poor_fits_most(judge, domain) -> None:
    """Through the whole explainer, with a noiseless reading: the claim's band above the
    reading's band is larger for the items that fit the need worst than for those that fit
    it best, for Exaggeration, and no larger for Strict (away from the scale's floor)."""
    explainer = RuleExplainer(judge, PlatformParams(reading_noise=0.0))
    rows = []
    for seed, item in enumerate(domain.items[:120]):
        for need in NEEDS:
            inp = ExplanationInput(
                platform_id="P1",
                policy="strict",
                item=item.evidence,
                need=StructuredNeed(long_term_need="", current_need=need),
            )
            reading = explainer.reading(inp, np.random.default_rng(0))
            said = {
                name: lexicon.CLAIM.read(explain(explainer, item, name, need, seed))
                for name in ("strict", "exaggeration")
            }
            rows.append((reading, {k: v - lexicon.as_said(reading) for k, v in said.items()}))
    rows.sort(key=lambda r: r[0])
    third = len(rows) // 3
    worst, best = rows[:third], rows[-third:]

    def excess(part, name):
        return np.mean([r[1][name] for r in part])

    assert excess(worst, "exaggeration") > excess(best, "exaggeration") + 0.1
    unfloored = [r for r in rows if r[0] >= 0.4]
    half = len(unfloored) // 2
    assert excess(unfloored[:half], "strict") <= excess(unfloored[half:], "strict") + 0.05


@pytest.mark.parametrize("policy", PAPER_POLICIES)
def test_claims_of_one_policy_vary_with_the_evidence(explainer, domain, policy) -> None:
    levels = {
        lexicon.CLAIM.read(explain(explainer, item, policy, need, seed))
        for seed, item in enumerate(domain.items[:60])
        for need in NEEDS[:2]
    }
    assert None not in levels
    assert len(levels) >= 2, levels


def test_only_candid_policies_disclose(explainer, domain) -> None:
    for seed, item in enumerate(domain.items[:60]):
        assert lexicon.count_disclosures(explain(explainer, item, "exaggeration", seed=seed)) == 0
        assert lexicon.count_disclosures(explain(explainer, item, "strict", seed=seed)) >= 1
        assert lexicon.count_disclosures(explain(explainer, item, "balanced", seed=seed)) == 1
