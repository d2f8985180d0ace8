"""Outside variants with parameters: a mechanism, a learning rule and a ranker, each from a
package (as pip leaves one), chosen in a config file with a parameter, recorded in the run's
manifest with its distribution, version and source digest; a rerun after an edit of the
package's source is refused, naming the package."""

import json
from pathlib import Path

import pytest

from recmarket.run.store import RunStore
from tests.plugins import dist_info, recmarket, refused

MECHANISM = """
from dataclasses import dataclass
from typing import ClassVar
from pydantic import BaseModel, ConfigDict, Field
from recmarket.mechanisms import ReputationMechanism

class Params(BaseModel):
    model_config = ConfigDict(extra="forbid")
    keep: int = Field(4, ge=1)

@dataclass(frozen=True)
class Last(ReputationMechanism):
    Params: ClassVar[type[BaseModel]] = Params
    def kept(self, window, params):
        return params.keep

LAST = Last("last-k")
"""
RULE = """
from pydantic import BaseModel, ConfigDict
from recmarket.market.behaviour.learning import LearningRule

class Params(BaseModel):
    model_config = ConfigDict(extra="forbid")
    arm: int = 0

class Stubborn:
    def __init__(self, arms, arm):
        self.arms, self.arm = arms, arm
    def choose(self, rng):
        return self.arm
    def update(self, arm, reward):
        pass

STUBBORN = LearningRule("stubborn", lambda arms, params: Stubborn(arms, params.arm), Params)
"""
RANKER = """
from pydantic import BaseModel, ConfigDict
from recmarket.agents.contracts import RankedItem, Shortlist
from recmarket.agents.roles import RoleBackend

class Params(BaseModel):
    model_config = ConfigDict(extra="forbid")
    reason: str = "first shown"

class FirstK:
    def __init__(self, reason):
        self.reason = reason
    async def __call__(self, inp, seed):
        first = inp.candidates[: inp.k]
        return Shortlist(ranked=tuple(RankedItem(platform_id=c.platform_id, reason=self.reason)
                                      for c in first))

def make(embedder, offline, params):
    return FirstK(params.reason)

FIRST_K = RoleBackend("first-k", "shortlist", make, Params)
"""
BASE = 'condition = "local-rep"\nreputation_scope = "shared"\ndomains = ["Video_Games"]\n'
PLUGINS = {
    "mechanism": (
        MECHANISM,
        "recmarket.reputation",
        "last-k",
        "LAST",
        '[market.reputation]\nmechanism = "last-k"\nparams = { keep = 2 }\n',
        "reputation mechanism last-k",
    ),
    "learning rule": (
        RULE,
        "recmarket.learning_rules",
        "stubborn",
        "STUBBORN",
        '[market]\nplatform_strategy = "adaptive"\n'
        '[market.learning]\nrule = "stubborn"\nparams = { arm = 2 }\n',
        "learning rule stubborn",
    ),
    "ranker": (
        RANKER,
        "recmarket.roles",
        "first-k",
        "FIRST_K",
        '[roles]\nshortlist = { backend = "first-k", params = { reason = "seen first" } }\n',
        "role backend first-k",
    ),
}


@pytest.mark.parametrize("kind", PLUGINS)
def test_an_outside_variant_with_a_parameter_is_recorded_and_an_edit_refuses_the_rerun(
    tmp_path: Path, kind: str
) -> None:
    code, group, name, target, settings, recorded = PLUGINS[kind]
    module = f"plugin_{name.replace('-', '_')}"
    source = tmp_path / "site" / f"{module}.py"
    source.parent.mkdir()
    source.write_text(code)
    site = dist_info(source.parent, f"{name}-plugin", {group: {name: f"{module}:{target}"}})
    config = tmp_path / "run.toml"
    config.write_text(BASE + settings)
    out = tmp_path / "run"
    command = ["run", "--config", str(config), "--requests", "12", "--out", str(out)]
    recmarket(*command, paths=(site,))
    with RunStore.read(out) as store:
        variants = json.loads(store.manifest()["variants"])
        packages = json.loads(store.manifest()["packages"])
        stored = json.loads(store.manifest()["config"])
    assert variants[recorded]["distribution"] == f"{name}-plugin"
    assert variants[recorded]["version"] == "0.1" and len(variants[recorded]["digest"]) == 64
    assert packages[f"{name}-plugin"] == "0.1" and "pydantic" in packages
    assert '"params": {' in json.dumps(stored)  # the parameter is part of the settings hashed

    recmarket(*command, paths=(site,))  # unchanged: resumes (nothing left to play)
    source.write_text(code + "\n# edited after the run\n")
    said = refused(*command, paths=(site,))
    assert f"{recorded}: {name}-plugin 0.1, its source changed" in said


def test_a_mechanism_that_breaks_its_contract_is_refused_by_name_before_any_episode(
    tmp_path: Path,
) -> None:
    broken = MECHANISM.replace("return params.keep", "return 0")
    (tmp_path / "plugin_broken.py").write_text(broken)
    site = dist_info(
        tmp_path, "broken-plugin", {"recmarket.reputation": {"last-k": "plugin_broken:LAST"}}
    )
    config = tmp_path / "run.toml"
    config.write_text(BASE + PLUGINS["mechanism"][4])
    out = tmp_path / "run"
    said = refused(
        "run", "--config", str(config), "--requests", "12", "--out", str(out), paths=(site,)
    )
    assert "reputation mechanism 'last-k' (entry point plugin_broken:LAST" in said
    assert "kept(10) gave 0" in said and not (tmp_path / "run").exists()
