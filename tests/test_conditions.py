"""The conditions of Section 4.1 as the features the protocol asks for."""

import pytest

from recmarket.conditions import CONDITIONS, condition
from recmarket.vocabulary import Condition


def test_each_condition_is_the_combination_the_paper_describes() -> None:
    features = {n: (c.user_agent, c.reputation) for n, c in CONDITIONS.items()}
    assert features == {
        "platform-centric": (False, False),
        "no-rep": (True, False),
        "local-rep": (True, True),
    }
    assert set(CONDITIONS) == set(Condition.__args__)  # every name settings accept
    assert [c.label for c in CONDITIONS.values()] == ["Platform-Centric", "NoRep", "LocalRep"]


def test_an_unknown_condition_is_named_with_the_known_ones() -> None:
    with pytest.raises(ValueError, match="unknown condition 'rep'; known: platform-centric"):
        condition("rep")
