"""A reproduce's LLM cells play at once in one process, against one limit per endpoint."""

import asyncio
import signal
import subprocess
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from recmarket.agents.llm.wrappers import EndpointFailure
from recmarket.run import reproduce as reproducing
from recmarket.run.play_options import PlayOptions
from recmarket.run.reproduce import reproduce
from recmarket.run.runner import run
from recmarket.run.study_plan import plan
from recmarket.testing.fake_llm import FakeLLM
from tests.run.records import records
from tests.run.test_llm_runs import KEY, KEY_ENV, experiment
from tests.run.test_resume import command, finished_episodes


@pytest.fixture(autouse=True)
def api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, KEY)


@pytest.mark.slow  # end to end: LLM cells in one loop and one by one
def test_llm_cells_make_the_same_records_as_cell_by_cell(tmp_path: Path) -> None:
    with FakeLLM() as server:
        spec = experiment(tmp_path, server)
        reproduce(
            [str(spec)],
            tmp_path / "r",
            seeds=1,
            options=PlayOptions(llm_cache=tmp_path / "together.sqlite"),
        )
        _, configs = plan([str(spec)], tmp_path / "r", seeds=1)
        for number, (run_dir, cfg) in enumerate(configs.items()):
            alone = tmp_path / f"alone-{number}"
            run(
                cfg, alone, PlayOptions(llm_cache=tmp_path / f"alone-{number}.sqlite")
            ).store.close()
            assert records(alone) == records(Path(run_dir)), run_dir
    assert len(configs) == 2


class Closed:
    def close(self) -> None:
        pass


def test_llm_cells_play_at_once_and_share_the_endpoints(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each cell waits until every cell has started: played one after another, the first
    would wait for ever (here: a timeout)."""
    started: list[object] = []
    everyone = asyncio.Event()

    async def play_cell(cfg, out_dir, options, *, endpoints, **wiring):
        started.append(endpoints)
        if len(started) == 2:
            everyone.set()
        await asyncio.wait_for(everyone.wait(), timeout=5)
        return SimpleNamespace(store=Closed())

    monkeypatch.setattr(reproducing, "play_cell", play_cell)
    with FakeLLM() as server:
        reproduce([str(experiment(tmp_path, server))], tmp_path / "r", seeds=1)
    assert len(started) == 2 and started[0] is started[1]


def test_a_failing_cell_stops_the_others_and_its_error_is_raised_as_it_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stopped: list[str] = []

    async def play_cell(cfg, out_dir, options, **wiring):
        if cfg.condition == "no-rep":
            await asyncio.sleep(0.05)
            raise EndpointFailure("endpoint http://x/v1, model m: gone")
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            stopped.append(cfg.condition)
            raise

    monkeypatch.setattr(reproducing, "play_cell", play_cell)
    with FakeLLM() as server, pytest.raises(EndpointFailure, match="gone"):
        reproduce([str(experiment(tmp_path, server))], tmp_path / "r", seeds=1)
    assert stopped == ["local-rep"]


def test_at_most_cells_at_once_play_together_the_longest_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    playing: list[int] = []
    started: list[int] = []
    most = 0

    async def play_cell(cfg, out_dir, options, **wiring):
        nonlocal most
        playing.append(cfg.episodes.requests)
        started.append(cfg.episodes.requests)
        most = max(most, len(playing))
        await asyncio.sleep(0.01)
        playing.remove(cfg.episodes.requests)
        return SimpleNamespace(store=Closed())

    monkeypatch.setattr(reproducing, "play_cell", play_cell)
    monkeypatch.setattr(reproducing, "CELLS_AT_ONCE", 2)
    with FakeLLM() as server:
        spec = experiment(tmp_path, server)
        longer = 'name = "long"\nrequests = 30'
        text = spec.read_text().replace('name = "rho=1.0/local-rep"', longer)
        mid = '[[cells]]\nname = "mid"\nrequests = 20\nsettings = { condition = "no-rep" }\n'
        spec.write_text(text + mid)
        reproduce([str(spec)], tmp_path / "r", seeds=1)
    assert started == [30, 20, 12] and most == 2


@pytest.mark.slow  # end to end: runs in .ci/run with -m slow
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_stops_the_llm_cells_and_the_rerun_finishes_them(
    tmp_path: Path, signum: int
) -> None:
    """A signal while the LLM cells play in one process: one line, no traceback, the
    finished episodes kept; the same command then finishes every cell. (Raised from a
    signal handler inside the HTTP client's cancel scopes, it once hung the process.)"""
    out, cache = tmp_path / "r", tmp_path / "calls.sqlite"
    with FakeLLM(latency=0.05) as server:
        spec = experiment(tmp_path, server)
        args = [*command(["reproduce", str(spec), "--seeds", "1"], out), "--llm-cache", str(cache)]
        proc = subprocess.Popen(args, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 120
        while finished_episodes(out) < 5 and proc.poll() is None:
            assert time.monotonic() < deadline
            time.sleep(0.01)
        proc.send_signal(signum)
        _, stderr = proc.communicate(timeout=30)
        assert proc.returncode == 130, stderr
        assert f"stopped by {signal.Signals(signum).name}" in stderr
        assert "Traceback" not in stderr
        stopped_at = finished_episodes(out)
        assert 5 <= stopped_at < 72
        rerun = subprocess.run(args, capture_output=True, text=True)
    assert rerun.returncode == 0, rerun.stderr
    assert finished_episodes(out) == 72  # two cells of 12 requests in three domains
