"""Reputation mechanisms as registered objects: the built-in three, and one added by an
installed package, which a run then uses by name."""

from pathlib import Path

import pytest
from pydantic import ValidationError

from recmarket.catalogue.mechanisms import (
    FORGOTTEN,
    MECHANISMS,
    DecayParams,
    NewcomerParams,
    mechanism,
)
from recmarket.catalogue.registry import NoParams
from recmarket.config import MarketConfig
from tests.plugins import dist_info, exported_calls, recmarket


def test_the_built_in_mechanisms_keep_and_weigh_as_documented() -> None:
    assert MECHANISMS.names()[:3] == ("window", "beta", "decay")
    none, half = NoParams(), DecayParams(rate=0.5)
    assert mechanism("window").kept(10, none) == 10
    assert mechanism("beta").kept(10, NewcomerParams()) is None
    kept = mechanism("decay").kept(10, half)
    assert 0.5 ** (kept - 1) >= FORGOTTEN > 0.5**kept  # the oldest kept still counts
    assert mechanism("decay").weights(3, half) == (0.25, 0.5, 1.0)
    assert mechanism("window").weights(3, none) is None
    # The paper's window tells an LLM nothing beyond the records; the others say how they weigh.
    assert mechanism("window").evidence_header is None
    assert all(mechanism(n).evidence_header for n in ("beta", "decay"))


def test_an_unknown_mechanism_is_refused_with_the_known_ones() -> None:
    with pytest.raises(ValidationError, match="unknown reputation mechanism name 'tail'"):
        MarketConfig.model_validate({"reputation": {"mechanism": "tail"}})


PLUGIN = """
from dataclasses import dataclass
from recmarket.catalogue.mechanisms import ReputationMechanism

@dataclass(frozen=True)
class Halving(ReputationMechanism):
    def kept(self, window, params):
        return window
    def weights(self, count, params):
        return tuple(0.5 ** (count - 1 - i) for i in range(count))

HALVING = Halving("halving", "a record counts half as much as the next newer one")
"""


@pytest.mark.slow  # a subprocess run; tests/examples/test_half_life.py covers it by settings
def test_an_installed_mechanism_is_used_by_name(tmp_path: Path) -> None:
    """In a process where a package declares it (as pip leaves it): the settings accept the
    name, the memory keeps and weighs by it, and the shortlist inputs carry it."""
    (tmp_path / "halving_plugin.py").write_text(PLUGIN)
    site = dist_info(
        tmp_path, "halving-plugin", {"recmarket.reputation": {"halving": "halving_plugin:HALVING"}}
    )
    out = tmp_path / "run"
    flags = ["--domain", "Video_Games", "--requests", "24", "--reputation-scope", "shared"]
    flags += ["--reputation-mechanism", "halving", "--out", str(out)]
    recmarket("run", *flags, paths=(site,))
    inputs = [c["input"] for c in exported_calls(out, (site,)) if c["role"] == "shortlist"]
    assert {i["mechanism"] for i in inputs} == {"halving"}
    weights = [r["weight"] for i in inputs for records in i["histories"].values() for r in records]
    assert weights and set(weights) <= {0.5**k for k in range(10)} and min(weights) < 1.0
