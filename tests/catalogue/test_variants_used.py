"""What a run's settings use is read from the settings' types: nested variants are found,
a union's value is read as the arm it came through, and a kind added to the catalogue is
recorded in the manifest with no edit to the provenance code."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Annotated

import pytest
from pydantic import BaseModel, ConfigDict

from recmarket.api import CATALOGUE
from recmarket.catalogue.registry import NameIn, NoParams, Registry
from recmarket.catalogue.roles import ROLE_BACKENDS, RoleBackend
from recmarket.catalogue.variants_used import variants_in
from recmarket.config import RunConfig
from recmarket.run.manifest import RunIdentity


def named(cfg: RunConfig) -> set[tuple[str, str]]:
    return {(u.kind, u.name) for u in variants_in(cfg)}


def test_the_walk_finds_the_variants_nested_in_parameters_compositions_and_entrants() -> None:
    cfg = RunConfig.model_validate(
        {
            "condition": "no-rep",
            "market": {
                "composition": "strict=3,balanced=3",
                "entrants": "adaptive@5",
                "attacks": {"P4": {"attack": "whitewash", "params": {"below": 0.2}}},
            },
        }
    )
    found = named(cfg)
    assert {("policy", "strict"), ("policy", "balanced"), ("condition", "no-rep")} <= found
    # whitewash presents exaggeration by its parameters' default: the nested policy
    assert {("attack", "whitewash"), ("policy", "exaggeration")} <= found
    # "adaptive@5" came through the strategy arm of the entrant's union, not the policy one
    assert ("platform strategy", "adaptive") in found and ("policy", "adaptive") not in found
    whitewash = next(u for u in variants_in(cfg) if u.name == "whitewash")
    assert json.loads(whitewash.params) == {"below": 0.2}


def test_a_payload_family_named_in_a_behaviours_parameters_is_found() -> None:
    inject = {"attack": "inject", "params": {"family": "basic"}}
    cfg = RunConfig.model_validate({"market": {"attacks": {"P2": inject}}})
    assert ("payload family", "basic") in named(cfg)


@dataclass(frozen=True)
class Gadget:
    """A kind no recmarket module knows: defined here, so its origin is outside."""

    name: str
    Params: type[BaseModel] = NoParams


@dataclass(frozen=True)
class GadgetRanker:
    """A ranker whose parameters name a gadget."""

    name: str


def test_a_kind_added_to_the_catalogue_is_recorded_in_the_manifest(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    gadgets: Registry[Gadget] = Registry("gadget", "tests.gadgets", Gadget, lambda g: g.name)
    gadgets.register(Gadget("sprocket"))
    monkeypatch.setitem(CATALOGUE, gadgets.kind, gadgets)

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid", frozen=True)
        gadget: Annotated[str, NameIn(gadgets)] = "sprocket"

    backend = RoleBackend("gadget-ranker", "shortlist", lambda e, o, p: GadgetRanker("x"), Params)
    monkeypatch.setitem(ROLE_BACKENDS._items, backend.name, backend)
    cfg = RunConfig.model_validate(
        {"roles": {"shortlist": {"backend": "gadget-ranker", "params": {"gadget": "sprocket"}}}}
    )
    identity = RunIdentity.of(cfg)
    recorded = json.loads(identity.manifest()["variants"])
    assert recorded["gadget sprocket"]["distribution"] == "tests"
    assert len(recorded["gadget sprocket"]["digest"]) == 64
    with pytest.raises(ValueError, match="unknown gadget name 'gear'"):
        RunConfig.model_validate(
            {"roles": {"shortlist": {"backend": "gadget-ranker", "params": {"gadget": "gear"}}}}
        )


def test_the_catalogue_has_every_kind_each_with_entry_points_and_a_known_variant() -> None:
    assert set(CATALOGUE) == {
        "policy",
        "reputation mechanism",
        "reputation scope",
        "condition",
        "learning rule",
        "platform strategy",
        "attack",
        "copy strategy",
        "payload family",
        "role backend",
        "market measure",
        "LLM provider",
    }
    groups = [r.group for r in CATALOGUE.values()]
    assert len(set(groups)) == len(groups) and all(g.startswith("recmarket.") for g in groups)
    for registry in CATALOGUE.values():
        for name in registry.names():
            registry.params(name, {})  # every built-in passes its own probe
    # role backends all come from packages (the offline rules answer a role none is named
    # for); every other kind has built-in variants
    assert all(r.names() for kind, r in CATALOGUE.items() if kind != "role backend")
