"""The bundled demo domains: reproducible from the generator, and coherent enough to test
retrieval and agents on."""

import hashlib
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from recmarket.config import EpisodeConfig
from recmarket.data import BUNDLED_DATA_DIR
from recmarket.data.domain import domain_files, load_domain
from recmarket.data.episodes import index_episodes
from recmarket.data.synthetic import DOMAINS, product_types, write_domain


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("name", DOMAINS)
def test_bundled_files_are_exactly_what_the_generator_writes(name: str, tmp_path: Path) -> None:
    for path in write_domain(name, tmp_path):
        assert digest(path) == digest(BUNDLED_DATA_DIR / path.name), (
            f"{path.name} differs from the committed file: rerun scripts/make_demo_data.py"
        )


@pytest.fixture(scope="module", params=DOMAINS)
def demo(request: pytest.FixtureRequest):
    return load_domain(domain_files(BUNDLED_DATA_DIR, request.param))


def test_demo_domain_is_large_and_varied(demo) -> None:
    assert len(demo.items) >= 3000
    assert len(product_types(demo.name)) >= 30
    assert len(index_episodes(demo, EpisodeConfig())) >= 1300
    sources = Counter(it.evidence.description_source for it in demo.items)
    assert sources["description"] > 0 and sources["features"] > 0  # some are empty
    assert len({it.store for it in demo.items}) >= 10
    ratings = np.array([it.average_rating for it in demo.items])
    assert ratings.std() > 0.2
    assert demo.report.items_without_meta > 0  # like the real files


def test_histories_concentrate_on_few_product_types(demo) -> None:
    names = sorted((t.name.title() for t in product_types(demo.name)), key=len, reverse=True)
    type_of = {it.parent_asin: next(n for n in names if n in it.title) for it in demo.items}
    rows = demo.interactions
    shares = []
    for user in np.unique(rows.user)[:300]:
        items = demo.item_index[rows.user == user]
        kinds = Counter(type_of[demo.items[i].parent_asin] for i in items)
        shares.append(sum(c for _, c in kinds.most_common(3)) / len(items))
    assert np.median(shares) >= 0.8
