"""LLM settings: models by name, and which model (or the offline rules) answers each role."""

from __future__ import annotations

import os
from typing import Annotated, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from recmarket.agents.llm import credentials
from recmarket.agents.llm.formats import Structured, TextReplies
from recmarket.catalogue.providers import ProviderName
from recmarket.hashing import ADDED_LATER, OPERATIONAL
from recmarket.vocabulary import ROLES, RoleName

DEFAULT_MAX_REPLY_BYTES = 1_000_000  # a reply body larger than this is refused

# The paper's evaluation side (A.4): ranking, decision and the review-based update.
GROUPS = {
    "generation": ("query", "need", "explain", "copywriter", "review"),
    "evaluation": ("shortlist", "decide", "update"),
}
OFFLINE = "offline"
MIN_ROUND = 4  # calls a round of failures counts at least (failure_limit)
FLEX = "flex"
# The tier a flex call falls back to and the tier its price is read under otherwise.
STANDARD = "default"
BATCH = "batch"  # the price tier of a batch job's calls
Mode = Literal["live", "batch"]


class NoBatchAPI(ValueError):
    """Batch mode for a model whose provider runs no batch jobs: refused in one line before
    anything is sent."""


OPENAI_URL = "https://api.openai.com/v1"
# Where the OpenAI SDK, and so every user of it, looks for an endpoint no setting names.
BASE_URL_ENV = "OPENAI_BASE_URL"


class ModelConfig(BaseModel):
    """One chat model behind any OpenAI-compatible endpoint. The API key is never stored:
    only the name of the environment variable that holds it. Fields marked OPERATIONAL
    change how calls are made, not what they answer, and stay out of a run's hash."""

    # a refused value is not echoed: a base URL may hold a key
    model_config = ConfigDict(extra="forbid", frozen=True, hide_input_in_errors=True)

    name: str = Field(description="model name as the endpoint knows it")
    provider: Annotated[ProviderName, ADDED_LATER] = Field(
        "openai",
        description="what sends the requests: openai (any OpenAI-compatible endpoint), or an "
        "installed provider (recmarket.providers entry points)",
    )
    base_url: str = Field(
        default_factory=lambda: os.environ.get(BASE_URL_ENV) or OPENAI_URL,
        description=f"OpenAI-compatible base URL (unset: ${BASE_URL_ENV}, else {OPENAI_URL}, "
        "as the OpenAI SDK reads it)",
        validate_default=True,  # a URL from the environment is checked as a written one is
    )

    @field_validator("base_url")
    @classmethod
    def _reachable_url(cls, url: str) -> str:
        """An endpoint is reached over HTTP: another scheme (``file://``) or no host could
        only fail, and would be retried as if the endpoint were down. Credentials written
        into the URL are taken out first (``credentials.strip``): the settings, and so
        the manifest, the call store and every message, hold the URL without them."""
        url = credentials.strip(url)
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(
                f"base_url {url!r} is not an http:// or https:// URL with a host "
                "(e.g. http://127.0.0.1:8080/v1)"
            )
        return url

    api_key_env: str = Field("OPENAI_API_KEY", description="environment variable with the key")
    temperature: float = Field(0.0, ge=0.0, le=2.0)
    max_tokens: int = Field(512, ge=1)
    send_seed: bool = Field(
        True,
        description="pass each call's sample index as `seed` "
        "(reproducible sampling where the endpoint supports it)",
    )
    concurrency: Annotated[int, OPERATIONAL] = Field(
        64,
        ge=1,
        description="most calls in flight per endpoint; the adaptive limit starts from what "
        "the endpoint check measures and stays at or under this",
    )
    adaptive_concurrency: Annotated[bool, OPERATIONAL] = Field(
        True, description="adapt the limit to the endpoint (false: always `concurrency`)"
    )
    structured: Structured = Field(
        "auto",
        description="send each JSON role's reply schema: auto (probe the endpoint once, "
        "fall back), json_schema, json_object (JSON mode with the schema) or off",
    )
    timeout: Annotated[float | None, OPERATIONAL] = Field(
        None,
        gt=0,
        description="seconds an attempt of a call may take, from connecting to its last "
        "byte; default: sized to the endpoint's pace, which the check measures, and to the "
        "call (30 s at least, 900 s at most)",
    )
    max_retries: Annotated[int, OPERATIONAL] = Field(
        6, ge=0, description="retries on 429, 5xx, timeouts, disconnects"
    )
    retry_after_cap: Annotated[float, OPERATIONAL] = Field(
        120.0, gt=0, description="longest wait a Retry-After header may impose, in seconds"
    )
    max_failures_in_a_row: Annotated[int | None, OPERATIONAL] = Field(
        None,
        ge=1,
        description="failed retries in a row across all calls (429s aside) that stop the "
        "run; default twice the current concurrency limit, and at least 8 (two rounds of "
        "every call in flight failing again after its pause)",
    )
    max_reply_bytes: Annotated[int, OPERATIONAL] = Field(
        DEFAULT_MAX_REPLY_BYTES, ge=1024, description="larger reply bodies are rejected"
    )
    input_price: Annotated[float, OPERATIONAL] = Field(
        0.0, ge=0, description="USD per million prompt tokens"
    )
    output_price: Annotated[float, OPERATIONAL] = Field(
        0.0, ge=0, description="USD per million completion tokens"
    )
    cached_input_price: Annotated[float | None, OPERATIONAL] = Field(
        None,
        ge=0,
        description="USD per million prompt tokens the provider serves from its prompt cache "
        "(default: the input price)",
    )

    service_tier: Annotated[str | None, OPERATIONAL] = Field(
        None,
        min_length=1,
        description="the provider's service tier each role call asks for (auto, default, "
        "flex, priority, or any name the provider takes); unset: none is sent. Infrastructure, "
        "like the endpoint: not in the run's identity",
    )
    flex_fallback: Annotated[bool, OPERATIONAL] = Field(
        False,
        description="send a call on the default tier once the flex tier has been busy "
        "(429 or 498) for flex_wait seconds; false: stop the run there, resumable",
    )
    flex_wait: Annotated[float, OPERATIONAL] = Field(
        900.0,
        gt=0,
        description="seconds a flex call may keep meeting busy answers (each retried with "
        "backoff) before it falls back or stops",
    )
    tier_prices: Annotated[dict[str, float], OPERATIONAL] = Field(
        default_factory=dict,
        description="for a model priced in its config: price multiplier per service tier "
        "or 'batch' (e.g. {flex = 0.5, batch = 0.5}); tiers not named cost the input and "
        "output prices",
    )

    @field_validator("tier_prices")
    @classmethod
    def _factors(cls, factors: dict[str, float]) -> dict[str, float]:
        for tier, factor in factors.items():
            if not 0 <= factor <= 10:
                raise ValueError(f"tier_prices.{tier}: {factor} is not a multiplier in [0, 10]")
        return factors

    @property
    def flex(self) -> bool:
        """Whether role calls ask for the flex tier (busy answers expected, queues long)."""
        return self.service_tier == FLEX

    def failure_limit(self, in_flight: int) -> int:
        """Failed retries in a row that stop the run: the setting, or two rounds of the
        ``in_flight`` calls the endpoint's limit now allows, rounds of at least
        MIN_ROUND (under a limit cut to one or two, a few transient faults in a row are
        not yet an outage)."""
        return self.max_failures_in_a_row or 2 * max(in_flight, MIN_ROUND)


class LLMConfig(BaseModel):
    """``models`` by name; ``roles`` maps a role, a group (``generation``, ``evaluation``) or
    ``default`` to a model name or to ``offline``. Unmapped roles use the offline rules."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    models: dict[str, ModelConfig] = Field(default_factory=dict)
    roles: dict[str, str] = Field(default_factory=dict)
    repair_attempts: int = Field(2, ge=0, description="re-asks after an invalid answer")
    # Part of a run's identity on purpose (not ADDED_LATER): an LLM run stored before the
    # array form existed asked for plain text, and resuming it under the array would mix
    # the two in one store; it is refused instead, naming this setting.
    text_replies: TextReplies = Field(
        "sentences",
        description="how explain and review are asked where the endpoint honours a schema: "
        "sentences (an array of one to three) or text (plain text, no schema)",
    )

    mode: Annotated[Mode, OPERATIONAL] = Field(
        "live",
        description="live: every call sent as it comes; batch: the calls that wait on no "
        "other pending call (a stage across a cell's independent episodes) sent as one "
        "batch job (OpenAI Batch API), at the provider's batch price",
    )
    batch_poll: Annotated[float, OPERATIONAL] = Field(
        30.0, gt=0, description="longest wait between two looks at a submitted batch job"
    )
    batch_dir: Annotated[str | None, OPERATIONAL] = Field(
        None,
        description="batch mode for a local model: write each job to this folder in the "
        "OpenAI Batch format and wait for `vllm run-batch` to write its answers beside it, "
        "instead of using the endpoint's batch API",
    )

    @model_validator(mode="after")
    def _known_names(self) -> LLMConfig:
        for key, target in self.roles.items():
            if key not in (*ROLES, *GROUPS, "default"):
                raise ValueError(
                    f"roles: unknown role or group {key!r}; use one of "
                    f"{', '.join((*ROLES, *GROUPS, 'default'))}"
                )
            if target != OFFLINE and target not in self.models:
                raise ValueError(f"roles.{key}: no model named {target!r} under [llm.models]")
        return self

    def used(self) -> list[str]:
        """The models some role uses (not ``offline``), in the order they are configured."""
        used = {self.model_for(role) for role in ROLES}
        return [name for name in self.models if name in used]

    def model_for(self, role: RoleName) -> str:
        """The model that answers ``role``: its own entry, else its group's, else the
        default's, else the offline rules."""
        group = next(g for g, members in GROUPS.items() if role in members)
        for key in (role, group, "default"):
            if key in self.roles:
                return self.roles[key]
        return OFFLINE
