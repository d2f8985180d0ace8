"""Presentation policies as registered objects: the paper's three, their rules, and the
checks a new policy passes through."""

from dataclasses import dataclass, replace

import numpy as np
import pytest
from pydantic import TypeAdapter, ValidationError

from recmarket.agents.rules.params import PlatformParams
from recmarket.agents.rules.platform import claimed_level
from recmarket.catalogue.policies import (
    PAPER_POLICIES,
    POLICIES,
    AsRead,
    PolicyName,
    ShadeBelow,
    Shift,
    TowardConfident,
    Wording,
    families,
    policy,
)
from recmarket.catalogue.registry import PluginError


def test_the_paper_policies_are_registered_with_distinct_ids_and_colours() -> None:
    assert POLICIES.names()[:3] == PAPER_POLICIES == ("strict", "balanced", "exaggeration")
    paper = [policy(n) for n in PAPER_POLICIES]
    assert len({p.implementation_id for p in paper}) == 3
    assert len({p.colour for p in paper}) == 3
    assert all(p.guidance for p in paper)


def test_a_policy_name_in_a_setting_must_be_registered() -> None:
    names = TypeAdapter(PolicyName)
    assert names.validate_python("balanced") == "balanced"
    with pytest.raises(ValidationError, match="unknown policy name 'hype'; known: strict"):
        names.validate_python("hype")


@pytest.mark.parametrize(
    ("rule", "low", "high"),
    [(ShadeBelow(), -0.2, 0.0), (AsRead(), 0.0, 0.0), (TowardConfident(), 0.25, 0.35)],
)
def test_built_in_claim_rules_stay_within_their_calibrated_distance(rule, low, high) -> None:
    bounds, gen = PlatformParams(), np.random.default_rng(3)
    shifts = [rule.claim(0.5, gen, 1.0, bounds) - 0.5 for _ in range(400)]
    assert low - 1e-12 <= min(shifts) and max(shifts) <= high + 1e-12
    assert rule.varies == ((low, high) != (0.0, 0.0))


def test_a_fixed_shift_scales_with_intensity_and_checks_its_bounds() -> None:
    rule, bounds = Shift(-0.4, -0.2), PlatformParams()
    full = rule.claim(0.5, np.random.default_rng(1), 1.0, bounds)
    half = rule.claim(0.5, np.random.default_rng(1), 0.5, bounds)
    assert -0.4 <= full - 0.5 <= -0.2 and half - 0.5 == pytest.approx((full - 0.5) / 2)
    with pytest.raises(ValueError, match="low <= high"):
        Shift(0.3, 0.1)


@dataclass(frozen=True)
class BreaksAbove:
    """A claim rule that keeps its contract below a reading and breaks it above."""

    broken: object
    varies = False

    def claim(self, reading, gen, intensity, bounds):  # type: ignore[no-untyped-def]
        return self.broken if reading > 0.7 else reading


@pytest.mark.parametrize(
    ("broken", "says"),
    [(float("nan"), "gave nan at reading 0.8, not a finite"), ("high", "gave 'high'")],
)
def test_a_claim_that_is_not_a_finite_number_is_stopped_naming_its_policy(broken, says) -> None:
    shifty = replace(policy("balanced"), name="shifty", claim=BreaksAbove(broken))
    gen, params = np.random.default_rng(0), PlatformParams()
    assert claimed_level(shifty, 0.4, params, gen) == 0.4
    with pytest.raises(PluginError, match=f"policy 'shifty': its claim rule {says}"):
        claimed_level(shifty, 0.8, params, gen)


def test_a_wording_says_exactly_one_thing_after_the_claim() -> None:
    assert Wording(limitations=2).limitations == 2
    for wrong in ({}, {"limitations": 1, "sells": True}, {"trade_off": True, "sells": True}):
        with pytest.raises(ValueError, match="exactly one"):
            Wording(**wrong)


def test_summaries_report_the_paper_families_then_any_other_present() -> None:
    assert families([]) == PAPER_POLICIES
    assert families(["strict", None, "zeta", "hedged", "zeta"]) == (
        *PAPER_POLICIES,
        "hedged",
        "zeta",
    )
