"""Typed, validated settings of a whole run, composed from the settings each layer owns
(episodes: data; market: market; embedder: embedding; offline agents and LLMs: agents).

Everything a user can set is validated at the edge, with messages that name the field and
say what would be accepted; code further in trusts these objects.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ModelWrapValidatorHandler,
    field_validator,
    model_validator,
)

from recmarket.agents.llm.config import OFFLINE, LLMConfig
from recmarket.agents.rules.params import OfflineParams
from recmarket.catalogue.conditions import ConditionName, condition
from recmarket.catalogue.roles import RoleBackendName, RoleSetting, chosen_backend, role_setting
from recmarket.catalogue.scopes import ScopeName
from recmarket.data.domain import READER_VERSION
from recmarket.data.settings import EpisodeConfig
from recmarket.data.sources import demo_users, generator_digest
from recmarket.embedding.settings import EmbedderConfig
from recmarket.hashing import ADDED_LATER, left_out
from recmarket.market.older_forms import older_markets
from recmarket.market.settings import MarketConfig
from recmarket.numbers_given import unnumbered
from recmarket.vocabulary import RoleName

DEFAULT_DOMAINS = ("Musical_Instruments", "Video_Games", "Sports_and_Outdoors")


class RunConfig(BaseModel):
    """Everything that determines a run's records. Its hash guards a run directory: a
    restart resumes only with an identical configuration."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    data: Path | None = Field(
        None,
        description="directory of {Category}.jsonl[.gz] and meta_{Category}.jsonl[.gz] "
        "files; none: the bundled demo domains; demo:N: the demo generator's market with N "
        "reviewers a domain, made once in the cache directory (recmarket.data.sources)",
    )
    domains: tuple[str, ...] = Field(
        DEFAULT_DOMAINS, min_length=1, description="product domains (categories) to run"
    )
    condition: ConditionName = Field("local-rep", description="evaluation condition (Section 4.1)")
    reputation_scope: ScopeName = Field(
        "local",
        description="whose reputation records an episode reads and writes under local-rep: "
        "each simulated user's, each profile's, or everybody's",
    )
    seed: int = Field(
        42, ge=0, lt=2**63, description="the run's seed (every stream derives from it)"
    )
    draws: Annotated[int, ADDED_LATER] = Field(
        0,
        ge=0,
        lt=2**31,
        description="which set of role draws the roles take: 0 the run's own; another "
        "number an independent set keyed the same way (by episode and purpose), as a "
        "surrogate's replay or a pilot backend with draws of its own has (run/pilot.py); "
        "the environment's draws (requests, catalogs, retrieval, shuffles) never change",
    )
    record_choices: Annotated[bool, ADDED_LATER] = Field(
        False,
        description="keep each decision's alternatives with their chances, where the "
        "deciding backend says them (the offline user does): a surrogate's replay in a "
        "pilot, whose prediction then takes every decision's expectation (run/pilot.py); "
        "about a quarter more time an offline episode, and its bytes in the store twice",
    )
    market: MarketConfig = MarketConfig()
    episodes: EpisodeConfig = EpisodeConfig()
    embedder: EmbedderConfig = EmbedderConfig()
    agents: OfflineParams = OfflineParams()
    llm: LLMConfig | None = Field(None, description="models per role; None: all offline")
    roles: Annotated[dict[RoleName, RoleBackendName | RoleSetting], ADDED_LATER] = Field(
        {},
        description="role -> a registered role backend's name (recmarket.roles entry points), "
        "or { backend = NAME, params = {...} }, answering that role instead of the offline model",
    )

    @model_validator(mode="wrap")
    @classmethod
    def _numbers_written_as_numbers(cls, given: Any, read: ModelWrapValidatorHandler) -> Any:
        """A setting read as a number was written as one (``numbers_given``): ``"3"``,
        ``true`` or ``2.0`` for a count is refused, naming the setting, as a variant's
        parameters are."""
        made = read(given)
        if isinstance(given, dict) and (found := unnumbered(given, made)):
            raise found.refusal(cls.__name__)
        return made

    @field_validator("data")
    @classmethod
    def _demo_market_is_sized(cls, data: Path | None) -> Path | None:
        demo_users(data)  # a demo:N market's size is checked here, at the edge
        return data

    @model_validator(mode="after")
    def _roles_are_registered_backends(self) -> RunConfig:
        for role, value in self.roles.items():  # each key a role: its type says so
            chosen_backend(role, role_setting(value).backend)
        return self

    @model_validator(mode="after")
    def _dynamic_market_fits(self) -> RunConfig:
        market = self.market
        dynamic = market.adaptive or market.entrants or market.attacks
        if dynamic and not condition(self.condition).user_agent:
            raise ValueError(
                "adaptive platforms, entrants and attacks compete for a user "
                "agent's shortlist; platform-centric has none (use no-rep or local-rep)"
            )
        rounds = self.episodes.requests
        late = [str(e.model_dump()) for e in market.entrants if e.after_rounds >= rounds]
        if late:
            raise ValueError(
                f"market.entrants: {', '.join(late)} would enter after the last of the "
                f"{rounds} rounds each domain plays (episodes.requests), so it would never "
                "propose; enter earlier or play more requests"
            )
        if len(market.claim_intensities) > 1 and not market.adaptive:
            raise ValueError(
                "market.claim_intensities: several intensities are choices for adaptive "
                "platforms; give one, or use platform_strategy = adaptive"
            )
        llm_explains = self.llm is not None and self.llm.model_for("explain") != OFFLINE
        if market.claim_intensities != (1.0,) and llm_explains:
            raise ValueError(
                "market.claim_intensities: an LLM explainer reads only its policy's prompt "
                "block; claim intensity is a setting of the offline platform"
            )
        return self

    @property
    def uses_llm(self) -> bool:
        """Whether a model answers some role (an [llm] table with models)."""
        return self.llm is not None and bool(self.llm.models)

    @property
    def total_episodes(self) -> int:
        """Episodes the cell plays: its requests in every domain."""
        return self.episodes.requests * len(self.domains)

    def digest(self) -> str:
        """Hash of everything that determines the records (not how calls are made). Settings
        added after runs were stored (marked ADDED_LATER where they are declared) are left
        out at their defaults, so those runs keep their directories and resume under a newer
        version."""
        return self._hashed(self.model_dump_json(exclude=self._left_out()))

    def older_digests(self) -> tuple[str, ...]:
        """The hashes these same settings had when written in an older form of the
        market's settings (``market.older_forms``), which runs stored before it may carry:
        what ``recmarket migrate`` (``run/migrate.py``) recognises and rewrites. A lookup
        finds a run by its current hash alone."""
        dumped = json.loads(self.model_dump_json(exclude=self._left_out()))
        return tuple(
            self._hashed(json.dumps({**dumped, "market": market}, **JSON_AS_PYDANTIC))
            for market in older_markets(dumped["market"])
        )

    def _left_out(self) -> dict[str, Any]:
        return left_out(self)

    def _hashed(self, identity: str) -> str:
        if demo_users(self.data) is not None:  # the market is the generator's output
            identity += f"\ndemo generator {generator_digest()}"
        elif self.data is not None:  # the user's files, as this version's reader keeps them
            identity += f"\nreview reader {READER_VERSION}"
        return hashlib.sha256(identity.encode()).hexdigest()


# json.dumps writing what pydantic's model_dump_json writes: compact, unescaped
JSON_AS_PYDANTIC: dict[str, Any] = {"separators": (",", ":"), "ensure_ascii": False}
