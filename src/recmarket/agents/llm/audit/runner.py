"""Running the audit: each model's probes for the roles it plays, through the same LLM path
as a run (prompt cards, structured outputs, re-asks, retries, limits), its calls kept in a
store beside its card so a rerun costs nothing and a longer one only the new trials."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from recmarket.agents.contracts import Contract, RoleFailure
from recmarket.agents.llm.api import ChatAPI
from recmarket.agents.llm.attempts import input_digest, read_attempts
from recmarket.agents.llm.audit.card import (
    AuditCard,
    ProbeResult,
    card_dir,
    made_now,
    settings_key,
    write_card,
)
from recmarket.agents.llm.audit.probes import FORMAT, PROBES, Material, Probe
from recmarket.agents.llm.backend import LLMBackend
from recmarket.agents.llm.config import LLMConfig, ModelConfig
from recmarket.catalogue.providers import chat_api
from recmarket.tasks import gather_or_cancel
from recmarket.vocabulary import ROLES, RoleName

CALLS_FILE = "calls.sqlite"


@dataclass
class Tally:
    """Passes and trials of each probe, and of the first replies (the format probe)."""

    passes: dict[str, list[bool]] = field(default_factory=dict)
    first_replies: list[bool] = field(default_factory=list)


def played(config: LLMConfig, name: str) -> list[str]:
    """The roles model ``name`` answers under ``config``."""
    return [role for role in ROLES if config.model_for(role) == name]


def probes_for(roles: Sequence[str]) -> list[Probe]:
    """The probes that ask the given roles."""
    return [p for p in PROBES if p.role in roles]


async def audit_model(
    config: LLMConfig,
    name: str,
    material: Material,
    trials: int,
    audits: Path,
    provider: Callable[[ModelConfig], ChatAPI] = chat_api,
    replay: bool = False,
) -> AuditCard:
    """Run ``name``'s probes ``trials`` times each; store and return its card. An endpoint
    that fails (EndpointFailure) stops the audit, as it stops a run: infrastructure is not
    a result. With ``replay`` every call is served from the card's store and none is sent
    (``ReplayMiss`` names one it lacks), so a stored audit can be made again offline."""
    cfg = config.models[name]
    roles = played(config, name)
    probes = probes_for(roles)
    directory = card_dir(audits, cfg, config.repair_attempts)
    directory.mkdir(parents=True, exist_ok=True)
    audited = LLMConfig(
        models={name: cfg},
        roles={role: name for role in roles},
        repair_attempts=config.repair_attempts,
    )
    backend = LLMBackend(audited, [directory / CALLS_FILE], replay=replay, provider=provider)
    tally = Tally()

    async def ask(role: RoleName, inp: Contract, sample: int) -> Contract | None:
        try:
            answer: Contract | None = await backend.roles[role](inp, sample)
        except RoleFailure:
            answer = None
        assert backend.attempts.db is not None  # the audit's store keeps attempts
        digest = input_digest(json.loads(inp.model_dump_json()))
        first = read_attempts(backend.attempts.db, (role, digest))[(role, digest)][0]
        tally.first_replies.append(first.error is None)
        return answer

    async def run(probe: Probe) -> None:
        assert probe.run is not None
        outcomes = await gather_or_cancel(*(probe.run(ask, material, t) for t in range(trials)))
        tally.passes[probe.name] = [passed for trial in outcomes for passed in trial]

    try:
        for probe in probes:  # one probe after another: each call still fans out its trials
            await run(probe)
        reported = backend.cache.reported(cfg.name, cfg.base_url) or ""
    finally:
        await backend.aclose()
        backend.close()
    results = [result(p, tally.passes[p.name]) for p in probes]
    if probes:
        results.append(result(FORMAT, tally.first_replies))
    card = AuditCard(
        model=cfg.model_dump(mode="json"),
        key=settings_key(cfg, config.repair_attempts),
        roles=roles,
        results=results,
        trials=trials,
        seed=material.seed,
        domain=material.domain,
        made=made_now(),
        endpoint_report=reported,
    )
    write_card(card, directory)
    return card


def result(probe: Probe, passes: list[bool]) -> ProbeResult:
    """The card's entry for a probe from its trials' outcomes."""
    return ProbeResult(
        probe=probe.name,
        role=probe.role,
        what=probe.what,
        passes=sum(passes),
        trials=len(passes),
        chance=probe.chance,
        depends=probe.depends,
    )
