"""Chat providers by name: what sends a model's requests (``ModelConfig.provider``).

A provider is a factory of ``ChatAPI``s, one per configured model, in the shape of
inspect_ai's registered model APIs. The built-in ``openai`` speaks to any OpenAI-compatible
endpoint (DeepSeek, OpenAI, vLLM, Ollama, llama.cpp); another package adds one under the
``recmarket.providers`` entry-point group, and a model's settings choose it by name, so a
run's store records which provider answered, and from which distribution.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import BaseModel

from recmarket.catalogue.registry import NameIn, NoParams, Registry

# What a provider makes: a ``recmarket.agents.llm.api.ChatAPI`` (``generate(request) ->
# Reply``, ``aclose()``), which the catalogue, below the agents, names but does not import.
ChatAPI = Any


@dataclass(frozen=True)
class LLMProvider:
    """A provider under a name: ``make(model_config)`` gives the ``ChatAPI`` that sends
    that model's requests (made when a run's backend is built, not when settings are
    read)."""

    name: str
    make: Callable[[Any], ChatAPI]
    says: str
    Params: type[BaseModel] = NoParams  # its parameters' model: it takes none
    # Its batch jobs (``recmarket.agents.llm.batch_api.BatchAPI``) for a model's settings;
    # None: it runs none, and batch mode is refused
    batches: Callable[[Any], Any] | None = None


@dataclass(frozen=True)
class Deferred:
    """A factory imported when a model is first made, by its path (as an entry point names
    one): the openai SDK is slow to import, and reading settings needs only a provider's
    name. The module it names imports the settings, so it could not be imported here."""

    module: str
    attribute: str

    def __call__(self, cfg: Any) -> ChatAPI:
        factory: Callable[[Any], ChatAPI] = getattr(
            importlib.import_module(self.module), self.attribute
        )
        return factory(cfg)


def probe(provider: LLMProvider, params: object) -> None:
    """The contract, checked when settings name the provider: a factory to call."""
    if not callable(provider.make):
        raise ValueError("its make is not callable")


LLM_PROVIDERS: Registry[LLMProvider] = Registry(
    "LLM provider", "recmarket.providers", LLMProvider, lambda p: p.name, probe
)
LLM_PROVIDERS.register(
    LLMProvider(
        "openai",
        Deferred("recmarket.agents.llm.openai_api", "OpenAIChatAPI"),
        "any OpenAI-compatible chat completions endpoint",
        batches=Deferred("recmarket.agents.llm.batch_jobs", "OpenAIBatches"),
    )
)

# A provider's name in a model's settings: any registered provider.
ProviderName = Annotated[str, NameIn(LLM_PROVIDERS, probed=True)]


def chat_api(cfg: Any) -> ChatAPI:
    """The ``ChatAPI`` of a model's settings, from the provider they name."""
    return LLM_PROVIDERS.get(cfg.provider).make(cfg)
