"""The ladder's trained rung: SASRec fitted on the category's sequences but each person's
latest review, silent ("not fitted") without its extra or its people, and where it is
fitted, ranking the item a sequence leads to first."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from recmarket.data.domain import domain_files, load_domain
from recmarket.embedding import load_embedder
from recmarket.embedding.settings import EmbedderConfig
from recmarket.embedding.similarity import similarity_for
from recmarket.validity.baselines import BASELINES
from recmarket.validity.category_data import CategoryData
from recmarket.validity.heldout import held_outs
from recmarket.validity.ranking import tied_values
from recmarket.validity.sequential import EXTRA, TOO_FEW, training_sequences
from tests.data.test_domain import newest_first
from tests.fixtures import meta

SEQUENTIAL = BASELINES["sequential"]
CHAINS, CHAIN_LENGTH = 3, 16


def chains(make_domain, people: int, walk: int) -> Path:
    """People each walking ``walk + 1`` steps along one of three chains of items (their
    latest step held out), from starts spread along it."""
    links = [[f"c{c}i{k:02d}" for k in range(CHAIN_LENGTH)] for c in range(CHAINS)]
    reviews = []
    for u in range(people):
        chain, start = links[u % CHAINS], (u // CHAINS) % (CHAIN_LENGTH - walk)
        reviews += newest_first(f"u{u:03d}", chain[start : start + walk + 1])
    metas = [meta(x, title=f"Thing {x}") for link in links for x in link]
    return make_domain(reviews, metas, name="Chains")


@pytest.fixture(scope="module")
def similarity():
    return similarity_for(load_embedder(EmbedderConfig()))


def test_training_leaves_out_each_latest_review_and_its_earlier_reviews(make_domain) -> None:
    rows = newest_first("a", ["x", "y", "z", "y", "w", "q"]) + newest_first(
        "b", ["q", "y", "x", "w", "z", "y"]
    )
    data = make_domain(rows, [meta(x) for x in "xyzwq"], name="Seq")
    domain = load_domain(domain_files(data, "Seq"))
    found = training_sequences(domain)
    by: dict[int, list[tuple[int, str]]] = {}
    for person, item, time in found:
        by.setdefault(person, []).append((time, domain.items[item].parent_asin))
    assert sorted([a for _, a in seen] for seen in by.values()) == [
        ["q", "x", "w", "z"],
        ["x", "y", "z", "y", "w"],
    ]
    assert all(seen == sorted(seen) for seen in by.values())  # each in time order


def test_the_rung_says_why_it_is_not_fitted(
    make_domain, similarity, monkeypatch: pytest.MonkeyPatch
) -> None:
    domain = load_domain(domain_files(chains(make_domain, 30, 6), "Chains"))
    data = CategoryData(domain, similarity)
    installed = importlib.util.find_spec("cornac") and importlib.util.find_spec("torch")
    assert SEQUENTIAL.note(data) == (TOO_FEW if installed else EXTRA)
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None)
    assert SEQUENTIAL.note(data) == EXTRA


@pytest.mark.slow  # two SASRec fits on 120 people: about 30 s
def test_the_fitted_rung_ranks_where_sequences_lead_and_fits_alike_twice(
    make_domain, similarity
) -> None:
    """Each chain's next item is what its earlier steps lead to: the rung ranks the held-out
    step first among ten far more often than chance's tenth; a held-out no sequence holds
    (a chain's last item) is ranked below the items it knows; and a second fit from the
    same seed scores alike."""
    pytest.importorskip("cornac", reason="the 'sequential' extra is not installed")
    domain = load_domain(domain_files(chains(make_domain, 120, 6), "Chains"))
    data = CategoryData(domain, similarity, seed=3)
    assert SEQUENTIAL.note(data) == ""
    held = held_outs(domain, 9, seed=3).held
    candidates = [[h.episode.target.item_index, *(h.negatives("random", 9) or ())] for h in held]
    scores = [SEQUENTIAL.scores(data, h, c) for h, c in zip(held, candidates, strict=True)]
    known = [s for s in scores if np.isfinite(s[0])]
    new = [s for s in scores if not np.isfinite(s[0])]  # held-outs at a chain's end
    assert known and new
    assert np.mean([tied_values(s)["hr@1"] for s in known]) > 0.5
    assert all(tied_values(s)["hr@1"] < 0.5 for s in new)
    again = CategoryData(domain, similarity, seed=3)
    assert all(
        np.array_equal(SEQUENTIAL.scores(again, h, c), s)
        for h, c, s in zip(held[:20], candidates, scores, strict=False)
    )
