"""``recmarket llm check``: the endpoint check every LLM run makes first, on its own."""

from __future__ import annotations

import asyncio

from recmarket.agents.llm import Checked, LLMBackend
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
    """Send one tiny call to every model the roles use (checks key, URL and model name),
    measure each endpoint's latency at 1, 2, 4, ... parallel calls (where the adaptive
    concurrency limit starts), and find the structured-output form each model honours."""
    with user_errors():
        overrides = llm_overrides("llm", llm_model, llm_base_url, llm_api_key_env)
        cfg = build_config(config, overrides, {})
        if cfg.llm is None or not cfg.llm.models:
            fail("nothing to check: give --llm-model or a config file with an [llm] table")
        backend = LLMBackend(cfg.llm, cache_paths=[])

        async def run_checks() -> list[Checked]:
            try:
                return await backend.check()
            finally:
                await backend.aclose()

        checked = asyncio.run(run_checks())
        backend.close()
    for found in checked:
        model = found.cfg
        out.print(f"ok: {model.name} at {model.base_url} answered in {found.seconds:.2f} s")
        levels = ", ".join(f"{level}: {seconds:.2f} s" for level, seconds in found.parallel)
        out.print(f"  slowest of N parallel calls: {levels}")
        out.print(
            f"  concurrency limit starts at {found.start} (adaptive, at most "
            f"{model.concurrency}); structured outputs: {found.reply_format}"
        )
