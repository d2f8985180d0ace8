"""``recmarket llm check``: the endpoint check every LLM run makes first, on its own."""

from __future__ import annotations

import asyncio

from recmarket.agents.llm import LLMBackend
from recmarket.agents.llm.config import ModelConfig
from recmarket.cli.app import fail, llm_app, out, user_errors
from recmarket.cli.options import ConfigPath, LlmBaseUrl, LlmKeyEnv, LlmModel, llm_overrides
from recmarket.config_file import build_config


@llm_app.command("check")
def check(
    config: ConfigPath = None,
    llm_model: LlmModel = None,
    llm_base_url: LlmBaseUrl = None,
    llm_api_key_env: LlmKeyEnv = None,
) -> None:
    """Send one tiny call to every model the roles use: checks key, URL and model name."""
    with user_errors():
        overrides = llm_overrides("llm", llm_model, llm_base_url, llm_api_key_env)
        cfg = build_config(config, overrides, {})
        if cfg.llm is None or not cfg.llm.models:
            fail("nothing to check: give --llm-model or a config file with an [llm] table")
        backend = LLMBackend(cfg.llm, cache_paths=[])

        async def run_checks() -> list[tuple[ModelConfig, float]]:
            try:
                return await backend.check()
            finally:
                await backend.aclose()

        checked = asyncio.run(run_checks())
        backend.close()
    for model, took in checked:
        out.print(f"ok: {model.name} at {model.base_url} answered in {took:.2f} s")
