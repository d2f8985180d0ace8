"""The platform: claims from a noisy reading of the evidence, shaped by the policy."""

import asyncio

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
    for reading in np.linspace(0.1, 0.5, 9):
        assert reading - p.strict_shading <= claimed_level(STRICT, reading, p, gen) <= reading
        assert claimed_level(BALANCED, reading, p, gen) == pytest.approx(reading)
        assert claimed_level(EXAGGERATION, reading, p, gen) >= reading + p.exaggeration_lift[0]


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
