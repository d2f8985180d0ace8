"""The conditions of Section 4.1 as the features the protocol asks for."""

import pytest

from recmarket.catalogue.conditions import CONDITIONS, condition
from recmarket.config import RunConfig


def test_each_condition_is_the_combination_the_paper_describes() -> None:
    features = {c.name: (c.user_agent, c.reputation, c.instructed) for c in CONDITIONS}
    assert features == {
        "platform-centric": (False, False, False),
        "no-rep": (True, False, False),
        "local-rep": (True, True, True),
        # Appendix C.4's Rep-only addition without records: LocalRep's effect split
        "rep-instruction": (True, False, True),
    }
    labels = ["Platform-Centric", "NoRep", "LocalRep", "RepInstruction"]
    assert [c.label for c in CONDITIONS] == labels
    for name in CONDITIONS.names():  # every registered name is one settings accept
        assert RunConfig(condition=name).condition == name


def test_an_unknown_condition_is_named_with_the_known_ones() -> None:
    with pytest.raises(ValueError, match="unknown condition name 'rep'; known: platform-centric"):
        condition("rep")
    with pytest.raises(ValueError, match="unknown condition name 'rep'"):
        RunConfig(condition="rep")
