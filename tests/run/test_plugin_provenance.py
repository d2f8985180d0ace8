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
# kind: (source, group, name, object, settings, how the manifest names it)
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


def install(site: Path, kind: str) -> Path:
    """The plugin of ``kind`` as its own distribution on ``site``: its source file."""
    code, group, name, target, _, _ = PLUGINS[kind]
    module = f"plugin_{name.replace('-', '_')}"
    source = site / f"{module}.py"
    source.write_text(code)
    dist_info(site, f"{name}-plugin", {group: {name: f"{module}:{target}"}})
    return source


@pytest.mark.slow  # end to end: four recmarket processes
def test_outside_variants_with_parameters_are_recorded_and_an_edit_of_any_refuses_the_rerun(
    tmp_path: Path,
) -> None:
    """One run uses all three, each with a parameter, each from its own package."""
    site = tmp_path / "site"
    site.mkdir()
    sources = {kind: install(site, kind) for kind in PLUGINS}
    config = tmp_path / "run.toml"
    adaptive = '[market]\nplatform_strategy = "adaptive"\n'
    config.write_text(BASE + adaptive + "".join(p[4] for p in PLUGINS.values()))
    out = tmp_path / "run"
    command = ["run", "--config", str(config), "--requests", "12", "--out", str(out)]
    recmarket(*command, paths=(site,))
    with RunStore.read(out) as store:
        manifest = store.manifest()
    variants, packages = json.loads(manifest["variants"]), json.loads(manifest["packages"])
    stored = json.loads(manifest["config"])
    for kind, (_, _, name, _, _, recorded) in PLUGINS.items():
        assert variants[recorded]["distribution"] == f"{name}-plugin", kind
        assert variants[recorded]["version"] == "0.1" and len(variants[recorded]["digest"]) == 64
        assert packages[f"{name}-plugin"] == "0.1"
    assert "pydantic" in packages and manifest["git_dirty"] in ("true", "false", "")
    assert stored["market"]["reputation"]["params"] == {"keep": 2}  # hashed with the name
    assert stored["roles"]["shortlist"]["params"] == {"reason": "seen first"}

    for kind, source in sources.items():
        code, _, name, _, _, recorded = PLUGINS[kind]
        source.write_text(code + "\n# edited after the run\n")
        said = refused(*command, paths=(site,))
        assert f"{recorded}: {name}-plugin 0.1, its source changed" in said, kind
        source.write_text(code)  # put back: the next edit is the only change


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
