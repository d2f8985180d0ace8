"""The loader and episode rules on real Amazon Reviews'23 rows (../shared/data/amazon23).

The shared README counts, for each sample, users with at least 5 interactions and episodes
(such users whose last 20 interactions include one rated >= 4); our pipeline must agree.
"""

import json
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

from recmarket.config import EpisodeConfig
from recmarket.data.domain import domain_files, load_domain
from recmarket.data.episodes import index_episodes, sample_requests
from recmarket.data.raw import LoadIssues
from recmarket.data.reviews import scan_reviews
from recmarket.data.samples import MISSING_META, reshape_bitrecs
from tests.fixtures import meta, write_jsonl


def official_pair(sample: Path, out: Path, name: str) -> Path:
    return reshape_bitrecs(sample, out, name)


def users_and_episodes(rows: list[dict]) -> tuple[int, int]:
    """The README's counts, computed straight from rows: users with >= 5 reviews, and those
    whose last 20 reviews include one rated >= 4."""
    by_user = defaultdict(list)
    for r in rows:
        by_user[r["user_id"]].append((r["timestamp"], r["rating"]))
    users5 = [v for v in by_user.values() if len(v) >= 5]
    return len(users5), sum(any(rt >= 4 for _, rt in sorted(v)[-20:]) for v in users5)


@pytest.mark.parametrize(
    ("sample", "users5", "episodes"),
    [
        ("bitrecs/amazon_fashion_sample_1000.json", 24, 22),
        ("bitrecs/amazon_fashion_sample_5000.json", 134, 131),
        ("bitrecs/amazon_office_sample_1000.json", 70, 70),
        ("bitrecs/amazon_office_sample_5000.json", 366, 365),
    ],
)
def test_counts_match_the_shared_readme_once_repeated_rows_are_dropped(
    shared_data: Path, tmp_path: Path, sample: str, users5: int, episodes: int
) -> None:
    """The README counts every row; the samples repeat some reviews (as the real files do),
    which the loader drops. On the rows as given the counting rule gives the README's
    figures; on the distinct reviews (one per user, item and time) it gives exactly what
    the pipeline finds."""
    rows = json.loads((shared_data / sample).read_text())
    assert users_and_episodes(rows) == (users5, episodes)
    identity = ("user_id", "parent_asin", "timestamp")
    distinct = list({json.dumps([r.get(k) for k in identity]): r for r in rows}.values())
    directory = official_pair(shared_data / sample, tmp_path / "d", "Sample")
    domain = load_domain(domain_files(directory, "Sample"))
    assert domain.report.review_issues == {"duplicate review": len(rows) - len(distinct)}
    # an item the sample has no metadata for is no listing: its reviews are left out
    listed = [r for r in distinct if r["metadata"]["title"] != MISSING_META]
    assert (domain.report.reviews_without_meta > 0) == (len(listed) < len(distinct))
    expected = users_and_episodes(listed)
    assert (domain.n_users, len(index_episodes(domain, EpisodeConfig()))) == expected


def test_real_fashion_episodes_are_time_ordered_with_target_last(
    shared_data: Path, tmp_path: Path
) -> None:
    directory = official_pair(
        shared_data / "bitrecs/amazon_fashion_sample_5000.json", tmp_path / "d", "Amazon_Fashion"
    )
    domain = load_domain(domain_files(directory, "Amazon_Fashion"))
    requests = sample_requests(domain, EpisodeConfig(requests=60), seed=1)
    for r in requests:
        stamps = [h.timestamp for h in r.episode.history] + [r.episode.target.timestamp]
        assert stamps == sorted(stamps)
        assert r.episode.target.rating >= 4
        assert len(r.episode.history) <= 19
        assert r.episode.target.review_text  # pass two recovered the real review text


def test_pre_release_sample_keys_are_understood(shared_data: Path, tmp_path: Path) -> None:
    """review10.json uses sortTimestamp / helpfulVotes and is newest-first."""
    path = shared_data / "official_hf_sample/review10.json"
    table = scan_reviews(path, LoadIssues(path, strict=True))
    assert len(table) == 10
    assert np.all(np.diff(table.timestamp) <= 0)  # the file is newest first
    assert table.timestamp.min() > 1_000_000_000_000  # milliseconds

    asins = {json.loads(line)["parent_asin"] for line in path.read_text().splitlines()}
    directory = tmp_path / "d"
    directory.mkdir()
    (directory / "Toys.jsonl").write_bytes(path.read_bytes())
    write_jsonl(directory / "meta_Toys.jsonl", [meta(a) for a in sorted(asins)])
    domain = load_domain(domain_files(directory, "Toys"))
    (request,) = sample_requests(domain, EpisodeConfig(requests=1), seed=0)
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    newest_liked = max((r for r in rows if r["rating"] >= 4), key=lambda r: r["sortTimestamp"])
    assert request.episode.target.timestamp == newest_liked["sortTimestamp"]
    assert request.episode.target.review_title == newest_liked["title"]


def test_real_slice_command_writes_domains_that_run(shared_data: Path, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from recmarket.cli import app

    result = CliRunner().invoke(
        app, ["data", "real-slice", str(shared_data), "--dest", str(tmp_path / "slice")]
    )
    assert result.exit_code == 0, result.output
    office = load_domain(domain_files(tmp_path / "slice", "Office_Products"))
    # the README's 365, less the 3 users who reach 5 reviews only through repeated rows
    assert len(index_episodes(office, EpisodeConfig())) == 362
    missing = CliRunner().invoke(app, ["data", "real-slice", str(tmp_path), "--dest", "x"])
    assert missing.exit_code != 0 and "expected the shared real samples" in missing.output
