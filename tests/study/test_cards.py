"""A study's own cards: ``recmarket cards`` (and reproduce, when it plays) copies the kept
validity card of the user model that played real data beside the runs, and the report
reads it from there, the same with the cache gone; a study of the demo gathers none."""

import asyncio
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from recmarket.cli import app
from recmarket.config import EpisodeConfig, RunConfig
from recmarket.report.cards import validity_cards
from recmarket.report.data import load_cells
from recmarket.report.people import people_section
from recmarket.run.runner import run
from recmarket.study.cards import gather_cards
from recmarket.validity.kept import default_cards
from recmarket.validity.validate import validate_settings
from tests.validity.test_validity import tiny  # noqa: F401 (a fixture)


def test_a_studys_cards_are_gathered_beside_its_runs_and_read_from_there(
    tiny: Path,  # noqa: F811
    tmp_path: Path,
) -> None:
    cfg = RunConfig(data=tiny, domains=("Tiny",), episodes=EpisodeConfig(requests=4))
    study, cache = tmp_path / "study", tmp_path / "cache"
    run(cfg, study).store.close()
    assert gather_cards(study, cards=cache) == 0  # nothing validated yet
    assert "Not validated" in people_section(load_cells([study]))
    asyncio.run(validate_settings(cfg, tiny, [], tmp_path / "card", cards=cache, seed=3))
    said = CliRunner().invoke(app, ["cards", str(study), "--cards", str(cache)])
    assert said.exit_code == 0 and "1 card(s)" in said.stdout
    assert list(validity_cards(study).glob("*/*/validity.csv"))
    page = people_section(load_cells([study]))
    assert "Not validated" not in page and "hr@1" in page
    shutil.rmtree(cache)
    assert people_section(load_cells([study])) == page  # the study alone says the same


def test_a_demo_study_gathers_no_cards(tmp_path: Path) -> None:
    study = tmp_path / "demo"
    run(RunConfig(episodes=EpisodeConfig(requests=4)), study).store.close()
    assert gather_cards(study, cards=tmp_path / "cache") == 0
    assert not (study / "cards").exists()


def test_recmarket_run_is_a_one_cell_study_with_its_cards_beside_it(
    tiny: Path,  # noqa: F811
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("RECMARKET_CACHE", str(tmp_path / "cache"))
    cfg = RunConfig(data=tiny, domains=("Tiny",), episodes=EpisodeConfig(requests=4))
    asyncio.run(validate_settings(cfg, tiny, [], tmp_path / "card", cards=default_cards()))
    target = tmp_path / "one"
    args = ["run", "--data", str(tiny), "--domain", "Tiny", "--requests", "4", "--out", str(target)]
    assert CliRunner().invoke(app, args).exit_code == 0
    page = people_section(load_cells([target]))
    assert "Not validated" not in page and "hr@1" in page
