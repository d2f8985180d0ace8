"""The bundled demo domains: reproducible from the generator, and coherent enough to test
retrieval and agents on."""

import hashlib
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from recmarket.config import EpisodeConfig
from recmarket.data import BUNDLED_DATA_DIR
from recmarket.data.demo_listings import DOMAINS, product_types
from recmarket.data.domain import domain_files, load_domain
from recmarket.data.episodes import index_episodes, sample_requests
from recmarket.data.realism import (
    distinct_tokens_per_item,
    near_duplicates_per_1000,
    profile,
    subsample,
)
from recmarket.data.samples import real_slice
from recmarket.data.synthetic import write_domain


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.slow  # keeps the default selection well under 4 minutes
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


def test_targets_are_mostly_new_kinds_as_in_the_real_samples(demo) -> None:
    """Most targets are of a kind the history does not hold yet, some repeat one. The real
    samples: 7.7% and 6.7%; the demo 1.5-3.9% since a history leaves out earlier reviews
    of the target's own item, which counted here before (scripts/measure_data_realism.py,
    docs/data.md)."""
    episodes = [r.episode for r in sample_requests(demo, EpisodeConfig(requests=600), 0)]
    assert 0.01 < profile(demo, episodes).target_kind_in_history < 0.3


def test_demo_titles_are_about_as_distinctive_as_real_ones(demo, shared_data, tmp_path) -> None:
    """At the real Office slice's size, demo titles hold distinct words per item and
    near-duplicate pairs within a fifth of its (what lets a request single out its target)."""
    real_slice(shared_data, tmp_path)
    real = [it.title for it in load_domain(domain_files(tmp_path, "Office_Products")).items]
    titles = subsample([it.title for it in demo.items], len(real))
    for measure in (distinct_tokens_per_item, near_duplicates_per_1000):
        assert measure(titles) == pytest.approx(measure(real), rel=0.2), measure.__name__


def test_the_realism_measures_read_titles_as_they_should() -> None:
    assert distinct_tokens_per_item(["Acme Red Pen", "Acme Blue Pen"]) == 2.0  # 4 words, 2
    twins = ["Acme Pro X-1 Gel Pen, black, fine", "Acme Pro X-1 Gel Pen, blue, fine", "Zed Mat"]
    assert near_duplicates_per_1000(twins, threshold=0.7) == pytest.approx(1000 / 3)
    assert near_duplicates_per_1000(twins, threshold=0.8) == 0.0  # 6 of 8 words shared
    assert subsample(twins, 2) != twins and len(subsample(twins, 2)) == 2
