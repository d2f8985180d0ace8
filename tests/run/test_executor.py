"""Work units give the in-process runner's records, in this process and on Ray."""

import json
import sqlite3
from pathlib import Path

import pytest

from recmarket.config import EpisodeConfig, MarketConfig, RunConfig
from recmarket.run.executor import LocalExecutor, RayExecutor, plan_units, run_distributed
from recmarket.run.runner import run
from recmarket.run.store import RunStore

CELLS = {
    "local": RunConfig(
        condition="local-rep",
        domains=("Video_Games", "Musical_Instruments"),
        episodes=EpisodeConfig(requests=36),
    ),
    "style": RunConfig(
        condition="local-rep",
        reputation_scope="style",
        domains=("Video_Games",),
        episodes=EpisodeConfig(requests=36),
    ),
    "no-rep": RunConfig(
        condition="no-rep", domains=("Video_Games",), episodes=EpisodeConfig(requests=130)
    ),
    # learners shared by every stream, updated every 5 rounds (the resume below cuts a period)
    "adaptive": RunConfig(
        condition="local-rep",
        domains=("Video_Games", "Musical_Instruments"),
        episodes=EpisodeConfig(requests=36),
        market=MarketConfig(
            platform_strategy="adaptive",
            learning_period=5,
            learning_rule="exp3",
            reward="mix",
            claim_intensities=(0.5, 1.0),
            entrants="adaptive@10,strict@20",
        ),
    ),
}


def dump(out: Path) -> tuple[list, list]:
    with sqlite3.connect(out / "run.sqlite") as db:
        return (
            db.execute("SELECT * FROM episodes ORDER BY domain, ord").fetchall(),
            db.execute("SELECT * FROM calls ORDER BY domain, ord").fetchall(),
        )


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("reference")
    for name, cfg in CELLS.items():
        run(cfg, root / name).store.close()
    return {name: root / name for name in CELLS}


def test_units_follow_reputation_streams(tmp_path: Path) -> None:
    store = RunStore.open(tmp_path / "r", CELLS["local"])
    units = plan_units(CELLS["local"], store, tmp_path / "cache")
    assert len(units) == 2 * 12  # one per simulated user and domain
    store = RunStore.open(tmp_path / "s", CELLS["style"])
    assert len(plan_units(CELLS["style"], store, tmp_path / "cache")) == 6
    store = RunStore.open(tmp_path / "n", CELLS["no-rep"])
    assert [len(u.orders) for u in plan_units(CELLS["no-rep"], store, tmp_path / "cache")] == [
        60,
        60,
        10,
    ]
    store = RunStore.open(tmp_path / "a", CELLS["adaptive"])
    units = plan_units(CELLS["adaptive"], store, tmp_path / "cache")
    assert [u.orders for u in units] == [tuple(range(36))] * 2  # a domain, in schedule order


@pytest.mark.parametrize("name", list(CELLS))
def test_local_units_equal_the_runner_and_resume(
    name: str, reference: dict[str, Path], tmp_path: Path
) -> None:
    out = tmp_path / name
    run_distributed(CELLS[name], out, LocalExecutor()).close()
    assert dump(out) == dump(reference[name])
    with sqlite3.connect(out / "run.sqlite") as db:  # lose the later half of each domain
        db.execute("DELETE FROM episodes WHERE ord >= 18")
        db.execute("DELETE FROM calls WHERE ord >= 18")
    run_distributed(CELLS[name], out, LocalExecutor()).close()
    assert dump(out) == dump(reference[name])


def test_adaptive_records_store_every_choice_and_reward(reference: dict[str, Path]) -> None:
    with RunStore.read(reference["adaptive"]) as store:
        rows = store.episodes()
    lessons = [json.loads(r["strategy"]) for r in rows]
    assert all(lessons) and {p for x in lessons for p in x} == {f"P{i}" for i in range(1, 8)}
    arms = {arm for x in lessons for arm, _ in x.values()}
    assert "strict:0.5" in arms and "exaggeration" in arms
    assert all(value in (0.0, 0.5, 1.0) for x in lessons for _, value in x.values())
    assert not any("P8" in x for x in lessons)  # the strict entrant does not learn
    assert any(r["top1_platform"] == "P8" for r in rows if r["ord"] >= 20)


def test_ray_gives_identical_records(reference: dict[str, Path], tmp_path: Path) -> None:
    ray = pytest.importorskip("ray", reason="the 'ray' extra is not installed")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        executor = RayExecutor()
        for name, cfg in CELLS.items():
            run_distributed(cfg, tmp_path / name, executor).close()
            assert dump(tmp_path / name) == dump(reference[name]), name
    finally:
        ray.shutdown()
