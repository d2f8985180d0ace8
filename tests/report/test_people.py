"""The report finds the validity cards of the user model that played its real-data cells
beside their runs: not validated until ``validate`` keeps one and it is gathered into the
study, then that card (with the cache gone), and one card for each protocol, found by the
data's content the runs recorded; another user model, other bytes, or the demo, find none;
a damaged card is refused with its file and line; one validate writes a folder at a time."""

import asyncio
import shutil
from pathlib import Path

import pytest

from recmarket.config import RunConfig
from recmarket.data.fingerprint import digests
from recmarket.locks import DirectoryInUse
from recmarket.report.cards import validity_cards
from recmarket.report.data import Cell, Made
from recmarket.report.people import people_section
from recmarket.study.cards import keep_beside
from recmarket.validity.kept import CARD_CSV, read_kept, user_model_key
from recmarket.validity.validate import validate_settings
from tests.fixtures import lock_held_elsewhere
from tests.validity.test_validity import tiny  # noqa: F401 (a fixture)


def _cell(data: Path | None, agents: dict | None = None, study: Path | None = None) -> Cell:
    """A cell of ``study`` that played ``data`` (its store's record of the bytes it read)."""
    cfg = RunConfig.model_validate({"data": data, "agents": agents or {}})
    read = digests(sorted(data.iterdir())) if data is not None else {}
    made = Made("", None, "", "", tuple(sorted((n, d.sha256) for n, d in read.items())))
    return Cell(
        "accountability", "LocalRep", "fig", Path("run"), [], cfg, made=(made,), study=study
    )


def test_a_real_data_cell_shows_the_card_of_its_own_user_model(
    tiny: Path,  # noqa: F811
    tmp_path: Path,
) -> None:
    cards, study = tmp_path / "cards", tmp_path / "study"
    cell = _cell(tiny, study=study)
    before = people_section({"accountability": {"LocalRep": cell}})
    assert "Not validated" in before and f"recmarket validate --data {tiny}" in before
    rows = asyncio.run(
        validate_settings(cell.config, tiny, [], tmp_path / "out", cards=cards, seed=3)
    )
    [(about, kept)] = read_kept(cell.config, tiny, cards)
    assert [r.cells() for r in kept] == [r.cells() for r in rows] and about.seed == 3
    assert "Not validated" in people_section({"accountability": {"LocalRep": cell}})  # cached
    assert keep_beside(study, cell.config, cards=cards) == 1
    page = people_section({"accountability": {"LocalRep": cell}})
    assert "Not validated" not in page and "hr@1" in page and "centroid" in page
    shutil.rmtree(cards)  # the report reads the study alone: the cache is not needed
    assert people_section({"accountability": {"LocalRep": cell}}) == page
    other = _cell(tiny, {"ranker": {"long_term_weight": 0.5}}, study=study)
    assert keep_beside(study, other.config, cards=cards) == 0  # another user model: none
    assert "Not validated" in people_section({"a": {"b": other}})
    assert people_section({"a": {"b": _cell(None, study=study)}}) == ""  # the demo: no people
    damaged = validity_cards(study) / user_model_key(cell.config) / about.key() / CARD_CSV
    damaged.write_text(damaged.read_text().replace("0.", "x.", 1))
    with pytest.raises(ValueError, match=rf"{CARD_CSV} line \d+: could not convert"):
        people_section({"accountability": {"LocalRep": cell}})


def test_a_card_is_kept_for_each_protocol_and_found_by_the_datas_content(
    tiny: Path,  # noqa: F811
    tmp_path: Path,
) -> None:
    """A card made with another seed is kept beside the first, not over it; a copy of the
    same files finds both (content, not path), and other bytes in them find none."""
    cards, cell = tmp_path / "cards", _cell(tiny)
    for seed in (3, 4):
        asyncio.run(
            validate_settings(cell.config, tiny, [], tmp_path / "out", cards=cards, seed=seed)
        )
    assert sorted(about.seed for about, _ in read_kept(cell.config, tiny, cards)) == [3, 4]
    copy = tmp_path / "copy"
    shutil.copytree(tiny, copy)
    assert len(read_kept(cell.config, copy, cards)) == 2
    reviews = next(p for p in copy.iterdir() if not p.name.startswith("meta_"))
    reviews.write_text(reviews.read_text().replace("5.0", "4.0", 1))
    assert read_kept(cell.config, copy, cards) == []
    study = tmp_path / "study"
    assert keep_beside(study, _cell(tiny).config, cards=cards) == 2
    assert "Not validated" not in people_section({"a": {"b": _cell(tiny, study=study)}})
    assert "Not validated" in people_section({"a": {"b": _cell(copy, study=study)}})


def test_one_validate_writes_an_out_folder_at_a_time(
    tiny: Path,  # noqa: F811
    tmp_path: Path,
) -> None:
    out = tmp_path / "out"
    with lock_held_elsewhere(out) as pid, pytest.raises(DirectoryInUse, match=f"pid {pid}"):
        asyncio.run(validate_settings(_cell(tiny).config, tiny, [], out, cards=tmp_path / "c"))
    assert not (out / "validity.csv").exists()
