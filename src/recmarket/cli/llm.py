"""``recmarket llm check``: the endpoint check every LLM run makes first, on its own."""

from __future__ import annotations

import asyncio
import math
import os
import signal
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from recmarket.agents.llm.api import CHARS_PER_TOKEN, ChatRequest
from recmarket.agents.llm.config import LLMConfig, ModelConfig
from recmarket.agents.llm.local import LocalServer, LocalServerError
from recmarket.agents.llm.pace import BEFORE_MEASURED, CEILING, FLOOR, READ_TOKENS, deadline
from recmarket.agents.llm.wrappers import EndpointFailure
from recmarket.cli.app import fail, llm_app, out, user_errors
from recmarket.embedding.cache import default_cache_dir

if TYPE_CHECKING:  # the backend brings the openai client: imported when a command runs
    from recmarket.agents.llm.backend import Checked
from recmarket.cli.llm_options import LlmBaseUrl, LlmKeyEnv, LlmModel, configured_llm
from recmarket.cli.options import ConfigPath

SERVE_KEY_ENV = "RECMARKET_SERVE_KEY"  # the key variable of serve's own speed check


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
        llm = configured_llm(config, None, llm_model, llm_base_url, llm_api_key_env, "check")
        from recmarket.agents.llm.backend import LLMBackend  # the client: openai

        backend = LLMBackend(llm, cache_paths=[])

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
        levels = ", ".join(
            f"{level}: {seconds:.2f} s" if math.isfinite(seconds) else f"{level}: refused"
            for level, seconds in found.parallel
        )
        out.print(f"  slowest of N parallel calls: {levels}")
        out.print(
            f"  concurrency limit starts at {found.start} (adaptive, at most "
            f"{model.concurrency}); structured outputs: {found.reply_format}"
        )
        out.print(f"  {deadlines(found)}")
        out.print(f"  {caching(model)}")


def caching(model: ModelConfig) -> str:
    """Whether each role's shared prompt start reaches the provider's caching threshold,
    measured on a small LocalRep cell's prompts (every role plays there)."""
    from recmarket.agents.llm.prices import provider_at
    from recmarket.run.prompt_cache import REFERENCE, cache_reach, probe_cell

    known = provider_at(model)
    name, threshold = (known[0], known[1].cache_min_tokens) if known else ("", None)
    reach = cache_reach(probe_cell(), default_cache_dir(), threshold)
    starts = ", ".join(f"{r.role} {r.stable_tokens}/{r.mean_tokens:.0f}" for r in reach)
    head = f"prompt caching: tokens every call of a role starts with / its mean: {starts}"
    if threshold is None:
        return f"{head}; no caching threshold known at this endpoint ({REFERENCE})"
    short = [f"{r.role} +{r.padding}" for r in reach if not r.reaches]
    if not short:
        return f"{head}; every role reaches {name}'s {threshold:,}-token threshold"
    return (
        f"{head}; below {name}'s {threshold:,}-token threshold (stable text the start "
        f"would need): {', '.join(short)}"
    )


def deadlines(found: Checked) -> str:
    """How the model's deadlines are set, with the pace the check measured."""
    model = found.cfg
    if model.timeout is not None:
        return f"deadline: {model.timeout:g} s a call (the model's timeout setting)"
    if found.pace is None:
        return f"deadline: {BEFORE_MEASURED:g} s a call (the answer was too short to time)"
    prompt = [{"role": "user", "content": "x" * READ_TOKENS * CHARS_PER_TOKEN}]
    full = ChatRequest("check", prompt, model.max_tokens, 0.0, None)
    seconds, _ = deadline(model, found.pace, full)
    return (
        f"pace: {found.pace.tokens_per_second:.1f} tokens/s written"
        f"{found.pace.read_note()}; deadline sized to each call ({seconds:.0f} s for "
        f"{model.max_tokens} tokens and a {READ_TOKENS:,}-token prompt, {FLOOR:g}-{CEILING:g} s)"
    )


def serving_line(alias: str, base_url: str) -> str:
    """What ``serve`` says once the server answers: where, and the pace a run's check will
    find there (measured now, before anything else asks), with the deadline it gives."""
    from recmarket.agents.llm.backend import Checked, LLMBackend  # the client: openai

    os.environ.setdefault(SERVE_KEY_ENV, "local")  # this process only; the server ignores it
    cfg = ModelConfig(name=alias, base_url=base_url, api_key_env=SERVE_KEY_ENV)
    backend = LLMBackend(LLMConfig(models={alias: cfg}, roles={"default": alias}), [])
    [model] = backend.models

    async def measure() -> Checked:
        try:
            seconds = await model.check()
            pace = await model.measure_pace(seconds)
            return Checked(cfg, seconds, [], 1, "off", pace)
        finally:
            await backend.aclose()

    try:
        found = asyncio.run(measure())
    except EndpointFailure as exc:
        return f"serving {alias} at {base_url}; its pace could not be measured ({exc})"
    finally:
        backend.close()
    return f"serving {alias} at {base_url}; {deadlines(found)}"


@llm_app.command("serve")
def serve(
    model: Annotated[
        Path | None,
        typer.Option("--model", help="a GGUF file (default: SmolLM2-135M-Instruct, bundled)"),
    ] = None,
    alias: Annotated[
        str | None,
        typer.Option(
            "--alias",
            help="the model's name for --llm-model (default: the file's name and the start "
            "of a digest of its bytes, so that other weights are another name)",
        ),
    ] = None,
    port: Annotated[int, typer.Option("--port", help="loopback port (default: a free one)")] = 0,
    threads: Annotated[int | None, typer.Option("--threads", min=1, help="CPU threads")] = None,
    log: Annotated[Path | None, typer.Option("--log", help="the server's log file")] = None,
) -> None:
    """Serve a local model with llama.cpp's OpenAI-compatible server on loopback (needs
    the local extra), print its base URL, and stop it cleanly on Ctrl-C or SIGTERM."""
    server = LocalServer(model, alias, port, log=log)
    if threads is not None:
        server.threads = threads

    def stop_on(signum: int, _frame: object) -> None:
        raise KeyboardInterrupt  # the server is this command's child: it goes with it

    # Before the server starts: a signal that came before them would end this command and
    # leave the server (in a session of its own) running, an orphan holding the port.
    # SIGINT too: a background job ignores it. The previous handlers come back when the
    # command ends, so a process that called it in-process (a test) does not keep them.
    previous = {s: signal.signal(s, stop_on) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        with user_errors():
            try:
                server.start()
            except LocalServerError as exc:
                fail(str(exc))
        served = server.alias or ""
        out.print(f"{serving_line(served, server.base_url)} (Ctrl-C stops it)")
        out.print(
            f"try: recmarket run --backend llm --llm-model {served} --llm-base-url "
            f"{server.base_url} --llm-api-key-env LOCAL_KEY  (with LOCAL_KEY=local set)"
        )
        assert server.process is not None
        server.process.wait()
        fail(f"the server stopped by itself (code {server.process.returncode})")
    except KeyboardInterrupt:
        out.print("stopping")
    finally:
        server.stop()
        for signum, handler in previous.items():
            signal.signal(signum, handler)
