"""Work units give the in-process runner's records, however split, in this process, in
worker processes and on Ray."""

import json
import sqlite3
from pathlib import Path

import pytest

from recmarket.config import EpisodeConfig, MarketConfig, RunConfig
from recmarket.run.driver import run_distributed
from recmarket.run.executor import (
    MAX_PART,
    MIN_PART,
    LocalExecutor,
    ProcessExecutor,
    RayExecutor,
    plan_units,
)
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
    # long enough to be cut into two parts of six simulated users each
    "local-parts": RunConfig(
        condition="local-rep",
        domains=("Sports_and_Outdoors",),
        episodes=EpisodeConfig(requests=150),
    ),
    # learners shared by every stream, updated every 5 rounds (the resume below cuts a period)
    "adaptive": RunConfig(
        condition="local-rep",
        domains=("Video_Games", "Musical_Instruments"),
        episodes=EpisodeConfig(requests=36),
        market=MarketConfig(
            platform_strategy="adaptive",
            learning_period=5,
            learning={"rule": "exp3"},
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


def test_a_domain_is_cut_into_parts_of_whole_streams(tmp_path: Path) -> None:
    store = RunStore.open(tmp_path / "r", CELLS["local"])
    units = plan_units(CELLS["local"], store, tmp_path / "cache")
    assert [(u.domain, u.part, u.parts) for u in units] == [
        ("Video_Games", 0, 1),
        ("Musical_Instruments", 0, 1),
    ]
    store = RunStore.open(tmp_path / "n", CELLS["no-rep"])
    units = plan_units(CELLS["no-rep"], store, tmp_path / "cache", part_cost=1.0)
    assert [u.part for u in units] == [0, 1]  # as many parts as MIN_PART allows
    assert all(u.parts == 130 // MIN_PART for u in units)
    assert sum(u.cost for u in units) == pytest.approx(units[0].cost * 2)
    store = RunStore.open(tmp_path / "a", CELLS["adaptive"])
    units = plan_units(CELLS["adaptive"], store, tmp_path / "cache", part_cost=1.0)
    assert [u.parts for u in units] == [1, 1]  # learners couple a domain's streams


@pytest.mark.parametrize(
    ("condition", "scope", "parts"),
    [
        ("local-rep", "local", 12),  # twelve simulated users
        ("local-rep", "style", 6),  # six profiles
        ("local-rep", "shared", 1),
        ("no-rep", "local", -(-60_001 // MAX_PART)),  # every episode stands alone
    ],
)
def test_a_long_domain_is_cut_into_parts_no_larger_than_streams_allow(
    condition: str, scope: str, parts: int, tmp_path: Path
) -> None:
    """60,001 requests: MAX_PART asks for 13 parts; the streams may allow fewer."""
    cfg = RunConfig(
        condition=condition,
        reputation_scope=scope,
        domains=("Video_Games",),
        episodes=EpisodeConfig(requests=60_001),
    )
    units = plan_units(cfg, RunStore.open(tmp_path / "r", cfg), tmp_path / "cache")
    assert [u.parts for u in units] == [parts] * parts
    assert [u.part for u in units] == list(range(parts))


def test_a_finished_domain_has_no_unit(reference: dict[str, Path]) -> None:
    with RunStore.open(reference["local"], CELLS["local"]) as store:
        assert plan_units(CELLS["local"], store, reference["local"]) == []


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
    lessons = [json.loads(r["lessons"]) for r in rows]
    assert all(lessons) and {p for x in lessons for p in x} == {f"P{i}" for i in range(1, 8)}
    arms = {arm for x in lessons for arm, _ in x.values()}
    assert "strict:0.5" in arms and "exaggeration" in arms
    assert all(value in (0.0, 0.5, 1.0) for x in lessons for _, value in x.values())
    assert not any("P8" in x for x in lessons)  # the strict entrant does not learn
    # The entrant is in the market from round 20 on, and only then: shown, not always best.
    shown = [(r["ord"], (r["shown_platforms"] or "").split(",")) for r in rows]
    assert not any("P8" in names for order, names in shown if order < 20)
    assert any("P8" in names for order, names in shown if order >= 20)


def test_worker_processes_give_identical_records(
    reference: dict[str, Path], tmp_path: Path
) -> None:
    for name in ("local-parts", "no-rep"):
        run_distributed(CELLS[name], tmp_path / name, ProcessExecutor(2)).close()
        assert dump(tmp_path / name) == dump(reference[name]), name


@pytest.mark.slow  # end to end: a Ray cluster in-process
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


def test_a_worker_keeps_few_small_prepared_domains(monkeypatch) -> None:
    """A prepared domain weighs its requests and its fixed part (items' vectors, catalogs):
    a worker meeting many small cells keeps as many as that weight allows, not all of them."""
    from recmarket.config import RunConfig
    from recmarket.embedding.cache import default_cache_dir
    from recmarket.run import executor
    from recmarket.run.loaded import embedder_for
    from recmarket.run.phases import Phases

    monkeypatch.setattr(executor, "_prepared", type(executor._prepared)())
    monkeypatch.setattr(executor, "PREPARED_KEPT", 2 * (12 + executor.PREPARED_FIXED))
    for seed in range(4):
        cfg = RunConfig.model_validate(
            {"domains": ["Video_Games"], "episodes": {"requests": 12}, "seed": seed}
        )
        unit = executor.WorkUnit(
            "cell", cfg.model_dump_json(), "Video_Games", 0, 1, (), str(default_cache_dir()), 1.0
        )
        executor._prepare(cfg, unit, embedder_for(cfg.embedder), Phases())
    assert len(executor._prepared) == 2  # the two met last
