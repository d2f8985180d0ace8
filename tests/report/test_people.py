"""The report finds the validity card of the user model that played its real-data cells:
not validated until ``validate`` keeps one, then that card; another user model, or the
demo, finds none; a damaged card is refused with its file and line."""

import asyncio
from pathlib import Path

import pytest

from recmarket.config import RunConfig
from recmarket.report.data import Cell
from recmarket.report.people import people_section
from recmarket.validity.kept import CARD_CSV, read_kept, user_model_key
from recmarket.validity.validate import validate_settings
from tests.validity.test_validity import tiny  # noqa: F401 (a fixture)


def _cell(data: Path | None, agents: dict | None = None) -> Cell:
    cfg = RunConfig.model_validate({"data": data, "agents": agents or {}})
    return Cell("accountability", "LocalRep", "fig", Path("run"), [], cfg)


def test_a_real_data_cell_shows_the_card_of_its_own_user_model(
    tiny: Path,  # noqa: F811
    tmp_path: Path,
) -> None:
    cards = tmp_path / "cards"
    cell = _cell(tiny)
    before = people_section({"accountability": {"LocalRep": cell}}, cards)
    assert "Not validated" in before and f"recmarket validate --data {tiny}" in before
    rows = asyncio.run(
        validate_settings(cell.config, tiny, [], tmp_path / "out", cards=cards, seed=3)
    )
    kept = read_kept(cell.config, tiny, cards)
    assert kept is not None and [r.cells() for r in kept[1]] == [r.cells() for r in rows]
    page = people_section({"accountability": {"LocalRep": cell}}, cards)
    assert "Not validated" not in page and "hr@1" in page and "centroid" in page
    other = _cell(tiny, {"ranker": {"long_term_weight": 0.5}})
    assert read_kept(other.config, tiny, cards) is None  # another user model: its own card
    assert "Not validated" in people_section({"a": {"b": other}}, cards)
    assert people_section({"a": {"b": _cell(None)}}, cards) == ""  # the demo has no people
    damaged = cards / user_model_key(cell.config, tiny) / CARD_CSV
    damaged.write_text(damaged.read_text().replace("0.", "x.", 1))
    with pytest.raises(ValueError, match=rf"{CARD_CSV} line \d+: could not convert"):
        read_kept(cell.config, tiny, cards)
