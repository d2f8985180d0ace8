"""What a pilot costs before it runs: its cells priced for the episodes of the units it
plays, each unit's episodes counted exactly, and nothing for the offline bulk."""

from pathlib import Path

import pytest
from typer.testing import CliRunner

from recmarket.cli import app
from recmarket.config import RunConfig
from recmarket.run.pilot import PilotAsked
from recmarket.run.pilot_cost import estimate_pilot, unit_episodes, whole_cell
from recmarket.run.pilot_file import pilot_config, read_pilot_file
from recmarket.run.study_plan import plan
from tests.run.test_pilot import pilot_file, study

PRICED_PILOT = """
[llm.models.m]
name = "some-model"
input_price = 0.5
output_price = 2.0
[llm.roles]
decide = "m"
"""


def test_every_unit_of_a_domain_holds_its_share_of_the_requests() -> None:
    cfg = RunConfig.model_validate({"episodes": {"requests": 50, "users_per_profile": 2}})
    users = [unit_episodes("user", str(u), cfg) for u in range(12)]
    assert sum(users) == 50 and set(users) == {4, 5}  # dealt round-robin
    profiles = [unit_episodes("profile", p, cfg) for p in ("novice_advice", "transactional_direct")]
    assert sum(profiles) == sum(users[:2]) + sum(users[8:10])
    assert unit_episodes("domain", "0", cfg) == 50 and unit_episodes("request", "7", cfg) == 1


def test_a_pilot_is_priced_for_its_units_episodes_only(tmp_path: Path) -> None:
    spec, out = study(tmp_path, requests=48), tmp_path / "r"
    path = pilot_file(tmp_path, PRICED_PILOT)
    costs = estimate_pilot([str(spec)], out, tmp_path / "cache", PilotAsked(path, 0.25), seeds=1)
    noise = [f"{cell} (noise replay {r})" for cell in ("no-rep", "local-rep") for r in (1, 2)]
    assert [c.cell for c in costs] == ["no-rep", *noise[:2], "local-rep", *noise[2:]]
    _, configs = plan([str(spec)], out, seeds=1)
    pilots = [c for c in costs if "noise" not in c.cell]
    for c in [c for c in costs if "noise" in c.cell]:  # half the pilot's units, replayed
        assert 0 < c.episodes < next(p.episodes for p in pilots if c.cell.startswith(p.cell))
    for c in pilots:
        assert 0 < c.episodes < 48 and c.calls > 0  # 3 of 12 users: a quarter of the requests
        cfg = next(v for v in configs.values() if v.condition == c.cell)
        own = pilot_config(cfg, read_pilot_file(path), path)
        whole = whole_cell(own, "", tmp_path / "cache")
        assert c.cost == pytest.approx(whole.cost * c.episodes / 48)
    assert not out.exists()  # priced, not played


def test_reproduce_estimate_with_a_pilot_prints_the_pilots_cells(tmp_path: Path) -> None:
    spec, path = study(tmp_path, requests=24), pilot_file(tmp_path, PRICED_PILOT)
    args = ["reproduce", str(spec), "--out", str(tmp_path / "r"), "--seeds", "1", "--estimate"]
    result = CliRunner().invoke(app, [*args, "--pilot", str(path), "--pilot-share", "0.5"])
    assert result.exit_code == 0, result.output
    assert "the pilot's 6 cells at share 0.5" in result.output  # 2, each with 2 noise replays
    assert not (tmp_path / "r").exists()
