"""The card on any real data: a category or person that cannot be judged is listed and
skipped, never the rest; a held-out reviewed before leaves the history; negatives come from
named pools, nested across candidate counts; the ladder of baselines ranks by its rules;
and the card's files are written whole, per domain and protocol."""

import csv
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from recmarket.cli import app
from recmarket.data.domain import domain_files, load_domain
from recmarket.data.items import kind_noun
from recmarket.embedding import load_embedder
from recmarket.embedding.settings import EmbedderConfig
from recmarket.embedding.similarity import similarity_for
from recmarket.validity.baselines import BASELINES
from recmarket.validity.category_data import CategoryData
from recmarket.validity.heldout import HeldOut, held_outs
from recmarket.validity.pools import pool_named
from tests.data.test_domain import DAY, newest_first
from tests.fixtures import meta, review

KINDS = ["Stapler", "Notebook", "Pen", "Lamp"]
ITEMS = [f"o{k:02d}" for k in range(48)]


def office_title(k: int) -> str:
    return f"{['Blue', 'Heavy', 'Small', 'Desk'][k // 4 % 4]} {KINDS[k % 4]}, Model {k}"


@pytest.fixture(scope="module")
def similarity():
    return similarity_for(load_embedder(EmbedderConfig()))


@pytest.fixture
def office(make_domain) -> Path:
    """40 people of six reviews each, all of one kind, plus a category of one person who
    reviewed every one of its items."""
    reviews = []
    for u in range(40):
        mine = [ITEMS[(u % 4) + 4 * ((u + j) % 12)] for j in range(6)]
        reviews += newest_first(f"u{u:03d}", mine)
    metas = [meta(x, title=office_title(k)) for k, x in enumerate(ITEMS)]
    data = make_domain(reviews, metas, name="Office")
    make_domain(newest_first("solo", list("abcdef")), [meta(x) for x in "abcdef"], name="One")
    return data


def test_one_person_category_is_skipped_and_the_rest_reported(office: Path, tmp_path) -> None:
    out = tmp_path / "card"
    shown = CliRunner().invoke(
        app, ["validate", "--data", str(office), "--negatives", "3,7", "--out", str(out)]
    )
    assert shown.exit_code == 0, shown.output
    with (out / "skipped.csv").open() as f:
        skipped = list(csv.DictReader(f))
    assert [(s["domain"], s["person"]) for s in skipped] == [("One", "solo")]
    assert "no untouched item" in skipped[0]["reason"]
    assert "0 categories, 1 people" in shown.output
    with (out / "validity.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert {r["domain"] for r in rows} == {"all", "Office"}
    assert {r["candidates"] for r in rows} == {"", "4", "8"}
    assert {r["pool"] for r in rows} == {"", "random", "same-kind"}
    ladder = {r["scorer"] for r in rows if r["measure"] == "hr@1"}
    assert set(BASELINES) | {"ranker", "chance"} <= ladder
    silent = [r for r in rows if r["scorer"] == "cooccurrence" and r["domain"] == "Office"]
    assert silent and all(r["note"] == "too few people" and r["value"] == "" for r in silent)
    left = [r for r in rows if r["scorer"] == "cooccurrence" and r["domain"] == "all"]
    assert left and all(r["note"] == "leaves out Office (too few people)" for r in left)
    assert "1 people" in (out / "validity.md").read_text()


def test_a_held_out_reviewed_before_leaves_the_history_and_the_card_stays(make_domain) -> None:
    """Every person re-reviews their held-out item a day before their first review: the
    earlier review leaves the history, the count says so, and the held-outs are the same."""
    plain, again = [], []
    for u in range(12):
        mine = [ITEMS[(u % 4) + 4 * ((u + j) % 12)] for j in range(6)]
        rows = newest_first(f"u{u:03d}", mine)
        plain += rows
        again += [*rows, review(f"u{u:03d}", mine[-1], 1_600_000_000_000 - DAY, 5.0)]
    metas = [meta(x, title=office_title(k)) for k, x in enumerate(ITEMS)]
    first = held_outs(load_domain(domain_files(make_domain(plain, metas), "Tiny")), 9, 3)
    second = held_outs(load_domain(domain_files(make_domain(again, metas), "Tiny")), 9, 3)
    assert first.repeats == 0 and second.repeats == 12
    assert all(h.repeats == 1 for h in second.held)
    assert [h.episode.history for h in first.held] == [h.episode.history for h in second.held]
    assert [dict(h.pools) for h in first.held] == [dict(h.pools) for h in second.held]


def test_a_person_of_fewer_distinct_items_than_the_loader_asks_is_skipped(make_domain) -> None:
    """Five reviews of which two repeat an item are four interactions, not the loader's five."""
    rows = newest_first("u", ["a", "b", "a", "c", "d"]) + newest_first("v", list("abcdef"))
    rows += newest_first("w", list("ghijklmn"))
    metas = [meta(x) for x in "abcdefghijklmn"]
    drawn = held_outs(load_domain(domain_files(make_domain(rows, metas), "Tiny")), 3, 1)
    assert [h.episode.user_id for h in drawn.held] == ["v", "w"]
    assert [s.person for s in drawn.skipped] == ["u"] and "4 distinct" in drawn.skipped[0].reason


def _office_held(office: Path) -> tuple[list[HeldOut], CategoryData]:
    domain = load_domain(domain_files(office, "Office"))
    return held_outs(domain, 11, 5).held, domain


def test_the_same_kind_pool_draws_the_held_outs_kind_first(office: Path, similarity) -> None:
    held, domain = _office_held(office)
    kinds = [kind_noun(item.evidence.title) for item in domain.items]
    for h in held:
        target = kinds[h.episode.target.item_index]
        same = h.pools["same-kind"]
        # of 12 items of the kind the person touched 6: the 6 others come first, then random
        assert {kinds[i] for i in same[:6]} == {target}
        assert sum(kinds[i] == target for i in same) == 6
        assert sum(kinds[i] == target for i in h.pools["random"]) <= 6
    with pytest.raises(ValueError, match="negative pool 'hard': choose one of random, same-kind"):
        pool_named("hard")


def test_the_ladder_ranks_by_its_rules(office: Path, similarity) -> None:
    held, domain = _office_held(office)
    data = CategoryData(domain, similarity)
    h = held[0]
    items = [h.episode.target.item_index, *h.pools["random"][:9]]
    # popularity: reviews dated before the held-out, the person's own left out
    popular = BASELINES["popularity"].scores(data, h, items)
    when = h.episode.target.timestamp
    expected = [
        int(np.sum((domain.item_index == i) & (domain.interactions.timestamp < when)))
        for i in items
    ]
    assert popular.tolist() == expected
    # bm25: a candidate sharing the history's words outscores one sharing none
    bm25 = BASELINES["bm25"].scores(data, h, items)
    kind = kind_noun(h.episode.target.title)
    sharing = [k for k, i in enumerate(items) if kind_noun(domain.items[i].evidence.title) == kind]
    others = [k for k in range(len(items)) if k not in sharing]
    if others:
        assert min(bm25[sharing]) > max(bm25[others])
    # recent centroid: equal to the plain one when the history is one purchase long
    recent = BASELINES["recent_centroid"]
    assert recent.scores(data, h, items).shape == (len(items),)
    # co-occurrence: other people's co-reviews, none of them the person's own
    co = BASELINES["cooccurrence"].scores(data, h, items)
    assert (co >= 0).all()


def test_the_card_is_written_whole_and_never_through_a_link(office: Path, tmp_path) -> None:
    out = tmp_path / "card"
    out.mkdir()
    elsewhere = tmp_path / "elsewhere.csv"
    elsewhere.write_text("keep me\n")
    (out / "validity.csv").symlink_to(elsewhere)
    result = CliRunner().invoke(
        app, ["validate", "--data", str(office), "--domain", "Office", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert elsewhere.read_text() == "keep me\n"
    assert not (out / "validity.csv").is_symlink()
    assert not list(out.glob(".*.part*"))
