"""The in-process runner holds a bounded number of prepared episodes, however long the run."""

import asyncio
from pathlib import Path

import pytest

from recmarket.agents.rules import offline_agents
from recmarket.config import EpisodeConfig, RunConfig
from recmarket.run import runner
from recmarket.run.loaded import embedder_for
from recmarket.run.rounds import prepare, restored_round
from recmarket.run.runner import play_pending


@pytest.mark.parametrize("condition", ["local-rep", "no-rep"])
def test_offline_preparation_stays_a_few_batches_ahead_of_the_finishes(
    condition: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(runner, "OFFLINE_BATCH", 16)
    monkeypatch.setattr(runner, "OFFLINE_AHEAD", 2)
    cfg = RunConfig(
        condition=condition, domains=("Video_Games",), episodes=EpisodeConfig(requests=240)
    )
    embedder = embedder_for(cfg.embedder)
    prepared = prepare(cfg, "Video_Games", embedder, tmp_path / "cache")
    round_ = restored_round(cfg, prepared, offline_agents(embedder, cfg.agents), embedder, [])
    held, most, finished = 0, 0, []
    stage, finish = round_.prepare, round_.finish

    async def counted(batch: list) -> list:
        nonlocal held, most
        outcomes = await stage(batch)
        held += len(outcomes)
        most = max(most, held)
        return outcomes

    async def slow(outcome: object) -> object:  # finishes lag: preparation could run ahead
        for _ in range(50):
            await asyncio.sleep(0)
        return await finish(outcome)

    def commit(outcome: object) -> None:
        nonlocal held
        held -= 1
        finished.append(outcome)

    monkeypatch.setattr(round_, "prepare", counted)
    monkeypatch.setattr(round_, "finish", slow)
    asyncio.run(play_pending(cfg, round_, prepared.requests, commit))
    assert len(finished) == 240
    assert most <= 2 * 16  # not the 240 a preparation of everything first would hold
