"""What a model's tokens cost: its config's prices where given, else the bundled price
table (``prices.toml``: data with its source and the day it was read), at peak or off-peak
rates by the hour the call is made.

A provider that bills by time of day (DeepSeek: half price outside its peak hours) and
serves repeated prompt starts from a cache at a fraction of the input price makes a flat
price per token wrong by a factor of two or more, and always on the high side. The ledger
prices each call at the hour it was answered; the budget reserves at the peak rate, the
most a call can cost; ``estimate`` shows a run at peak and off-peak rates both.

Providers that sell the same call cheaper when it may wait (OpenAI's and Gemini's flex
``service_tier``, every batch API) have a rate per tier: ``tiers`` holds them by the name
the call was sent under (``flex``, ``priority``) or ``batch`` for a batch job's calls. A
tier without a rate is billed at the standard one, so an unknown tier never looks cheap.
"""

from __future__ import annotations

import tomllib
from datetime import UTC, datetime
from functools import cache
from importlib import resources
from typing import Any
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from recmarket.agents.llm.config import ModelConfig


class Rate(BaseModel):
    """USD per million tokens: fresh prompt tokens, prompt tokens served from the provider's
    prompt cache, completion tokens."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    input: float = Field(ge=0)
    cached_input: float = Field(ge=0)
    output: float = Field(ge=0)

    def cost(self, prompt_tokens: int, completion_tokens: int, cached_tokens: int = 0) -> float:
        """USD for a call's tokens at this rate, the cached prompt tokens at the cached
        price."""
        cached = min(max(cached_tokens, 0), prompt_tokens)
        fresh = prompt_tokens - cached
        return (
            fresh * self.input + cached * self.cached_input + completion_tokens * self.output
        ) / 1e6


class Prices(BaseModel):
    """A model's rates: ``peak`` always; ``off_peak`` outside ``peak_hours`` (UTC) where the
    provider bills by time of day. ``source`` says where the figures come from."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    peak: Rate
    off_peak: Rate | None = None
    peak_hours: tuple[tuple[int, int], ...] = ()
    tiers: dict[str, Rate] = Field(default_factory=dict)
    source: str = "the model's config"

    def at(self, when: datetime, tier: str | None = None) -> Rate:
        """The rate a call made at ``when`` on ``tier`` (None: the standard one) is billed
        at: the tier's own where it has one (tiers bill by the call, not by the hour)."""
        if tier is not None and tier in self.tiers:
            return self.tiers[tier]
        if self.off_peak is None:
            return self.peak
        hour = when.astimezone(UTC).hour
        peak = any(start <= hour < end for start, end in self.peak_hours)
        return self.peak if peak else self.off_peak


class TableModel(BaseModel):
    """One model's prices in the price table, USD per million tokens, with off-peak prices
    where the provider has them."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    input: float = Field(ge=0)
    cached_input: float = Field(ge=0)
    output: float = Field(ge=0)
    off_peak_input: float | None = Field(None, ge=0)
    off_peak_cached_input: float | None = Field(None, ge=0)
    off_peak_output: float | None = Field(None, ge=0)
    tiers: dict[str, Rate] = Field(
        default_factory=dict, description="rates by service tier name, or batch"
    )
    aliases: list[str] = Field(default_factory=list)


class Provider(BaseModel):
    """One provider in the price table: where its prices come from and when they were
    checked, its hosts, peak hours and models."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    source: str
    checked: Any  # a TOML date
    hosts: list[str]
    batch_api: bool = Field(False, description="whether it runs batch jobs (OpenAI's format)")
    cache_min_tokens: int | None = Field(
        None, ge=1, description="the shortest prompt start its prompt cache holds, in tokens"
    )
    peak_hours_utc: list[tuple[int, int]] = Field(default_factory=list)
    models: dict[str, TableModel]

    def prices(self, model: TableModel) -> Prices:
        """A model's prices as the ledger uses them: the peak rate, and the off-peak one
        where given."""
        fresh, cached, out = (
            model.off_peak_input,
            model.off_peak_cached_input,
            model.off_peak_output,
        )
        off_peak = None
        if fresh is not None and cached is not None and out is not None:
            off_peak = Rate(input=fresh, cached_input=cached, output=out)
        return Prices(
            peak=Rate(input=model.input, cached_input=model.cached_input, output=model.output),
            off_peak=off_peak,
            peak_hours=tuple(self.peak_hours_utc),
            tiers=model.tiers,
            source=f"{self.source}, as of {self.checked}",
        )


@cache
def table() -> dict[str, Provider]:
    """The bundled price table, validated (a broken table fails loudly, naming the entry)."""
    text = resources.files("recmarket.agents.llm").joinpath("prices.toml").read_text()
    try:
        return {name: Provider.model_validate(p) for name, p in tomllib.loads(text).items()}
    except ValidationError as exc:
        raise ValueError(f"prices.toml: {exc}") from None


def provider_at(cfg: ModelConfig) -> tuple[str, Provider] | None:
    """The price table's provider whose endpoint the model is at, by name (None: the table
    knows no provider there)."""
    host = urlsplit(cfg.base_url).hostname
    return next(((n, p) for n, p in table().items() if host in p.hosts), None)


def _listed(provider: Provider, name: str) -> TableModel | None:
    """The provider's entry for a model of this name or alias (None: it lists none)."""
    return next((m for n, m in provider.models.items() if name == n or name in m.aliases), None)


def hosts_pricing(name: str) -> list[str]:
    """The endpoints at which the table prices a model of this name (or alias): where a
    model priced nowhere else is likely meant to be sent."""
    return [
        host
        for provider in table().values()
        if _listed(provider, name) is not None
        for host in provider.hosts
    ]


def prices_for(cfg: ModelConfig) -> Prices | None:
    """The model's prices: its config's, where it gives any; else the table's for its name
    at its provider's own endpoint; else None (unpriced)."""
    if cfg.input_price or cfg.output_price:
        cached = cfg.input_price if cfg.cached_input_price is None else cfg.cached_input_price
        standard = Rate(input=cfg.input_price, cached_input=cached, output=cfg.output_price)
        return Prices(
            peak=standard,
            tiers={
                tier: Rate(
                    input=standard.input * factor,
                    cached_input=standard.cached_input * factor,
                    output=standard.output * factor,
                )
                for tier, factor in cfg.tier_prices.items()
            },
        )
    host = urlsplit(cfg.base_url).hostname
    for provider in table().values():
        if host in provider.hosts and (model := _listed(provider, cfg.name)) is not None:
            return provider.prices(model)
    return None


def price(
    cfg: ModelConfig,
    prompt_tokens: int,
    completion_tokens: int,
    cached_tokens: int = 0,
    when: datetime | None = None,
    tier: str | None = None,
) -> float:
    """USD for a call's tokens at the rate of its ``tier`` (None: standard) and of the hour
    it was made (now by default); 0 for an unpriced model."""
    found = prices_for(cfg)
    if found is None:
        return 0.0
    rate = found.at(when or datetime.now(UTC), tier)
    return rate.cost(prompt_tokens, completion_tokens, cached_tokens)


def worst_price(cfg: ModelConfig, prompt_tokens: int, completion_tokens: int) -> float:
    """The most a call of these tokens can cost: every prompt token fresh, at the dearest
    of the peak rate and the tiers' (a flex call may fall back to the standard tier)."""
    found = prices_for(cfg)
    if found is None:
        return 0.0
    return max(
        rate.cost(prompt_tokens, completion_tokens) for rate in (found.peak, *found.tiers.values())
    )
