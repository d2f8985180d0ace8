import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from recmarket.config import EpisodeConfig
from recmarket.data.domain import domain_files, find_domains, load_domain
from recmarket.data.episodes import sample_requests
from recmarket.data.raw import DataError
from tests.fixtures import meta, review

DAY = 86_400_000


def newest_first(
    user: str, items: list[str], ratings: list[float] | None = None, start: int = 1_600_000_000_000
) -> list[dict]:
    """A user's reviews as the real files hold them: contiguous and newest first."""
    ratings = ratings or [5.0] * len(items)
    rows = [
        review(user, it, start + i * DAY, r)
        for i, (it, r) in enumerate(zip(items, ratings, strict=True))
    ]
    return rows[::-1]


def test_join_excludes_items_without_meta_and_counts_them(make_domain: Callable[..., Path]) -> None:
    reviews = newest_first("U1", ["a", "b", "c", "d", "e", "ghost"]) + newest_first(
        "U2", ["a", "b", "c", "d", "ghost"]
    )  # U2 falls to 4 interactions after the join
    directory = make_domain(reviews, [meta(x) for x in "abcde"])
    domain = load_domain(domain_files(directory, "Tiny"))
    assert domain.report.reviews_without_meta == 2
    assert domain.report.items_without_meta == 1
    assert domain.n_users == 1
    assert [it.parent_asin for it in domain.items] == list("abcde")


def test_malformed_records_are_skipped_with_reasons(make_domain: Callable[..., Path]) -> None:
    good = newest_first("U1", list("abcde"))
    bad = [
        "not json at all",
        {**review("U2", "a", 1), "rating": 7},
        {k: v for k, v in review("U2", "b", 2).items() if k != "user_id"},
        {k: v for k, v in review("U2", "c", 3).items() if k != "timestamp"},
    ]
    directory = make_domain(good + bad, [meta(x) for x in "abcde"] + [{"parent_asin": "z"}])
    report = load_domain(domain_files(directory, "Tiny")).report
    assert report.review_issues == {
        "invalid JSON": 1,
        "rating out of range": 1,
        "missing required field": 2,
    }
    assert sum(report.meta_issues.values()) == 0  # item z is never reviewed: not even parsed
    assert any(":6: invalid JSON" in e for e in report.examples)
    with pytest.raises(DataError, match=r"Tiny\.jsonl:6: invalid JSON"):
        load_domain(domain_files(directory, "Tiny"), strict=True)


def test_meta_problems_are_reported(make_domain: Callable[..., Path]) -> None:
    directory = make_domain(
        newest_first("U1", list("abcdef")),
        [meta(x) for x in "abcde"] + [{"parent_asin": "f"}, meta("a")],
    )
    report = load_domain(domain_files(directory, "Tiny")).report
    assert report.meta_issues == {"missing required field": 1, "duplicate parent_asin": 1}


def test_meta_matching_nothing_is_an_error(make_domain: Callable[..., Path]) -> None:
    directory = make_domain(newest_first("U1", list("abcde")), [meta("x"), meta("y")])
    with pytest.raises(DataError, match="no meta record matches any reviewed item"):
        load_domain(domain_files(directory, "Tiny"))


def test_domains_are_found_by_file_pairs(make_domain: Callable[..., Path]) -> None:
    directory = make_domain(newest_first("U1", list("abcde")), [meta("a")], name="Alpha", gz=True)
    (directory / "Lonely.jsonl").write_text("")
    assert [d.name for d in find_domains(directory)] == ["Alpha"]
    with pytest.raises(DataError, match=r"no meta_Lonely\.jsonl\[\.gz\].*available: Alpha"):
        domain_files(directory, "Lonely")


def test_repeated_reviews_are_dropped_and_counted_however_they_are_written(
    make_domain: Callable[..., Path],
) -> None:
    """A file whose every review appears twice, once re-serialised with other spacing and
    key order and its text re-spaced or re-cased, loads as the file without the repeats: no
    review sits in its own user's history as the target it predicts."""
    reviews = newest_first("U1", list("abcdef")) + newest_first("U2", list("abcde"))
    retexted = [
        {**r, "text": f"  {r['text'].upper()}\t \n"} if i % 2 else {**r, "text": r["text"] + " "}
        for i, r in enumerate(reviews)
    ]
    respaced = [json.dumps(dict(reversed(r.items())), separators=(",", ":")) for r in retexted]
    directory = make_domain([*reviews, *respaced], [meta(x) for x in "abcdef"])
    for strict in (False, True):  # repeated data is intact data: not an error even then
        domain = load_domain(domain_files(directory, "Tiny"), strict=strict)
        assert domain.report.review_issues == {"duplicate review": len(reviews)}
        assert len(domain.interactions) == len(reviews)
    first = domain.report.examples[0]
    assert f"Tiny.jsonl:1: the same review as line {len(reviews) + 1} (same user, item" in first
    for request in sample_requests(domain, EpisodeConfig(requests=2), seed=0):
        history = {(i.parent_asin, i.timestamp) for i in request.episode.history}
        assert (request.episode.target.parent_asin, request.episode.target.timestamp) not in history


def test_an_edited_review_replaces_the_earlier_one_and_another_time_is_another_review(
    make_domain: Callable[..., Path],
) -> None:
    """A user reviews an item once at a given time: a line with the same user, item and time
    but another rating and text is the review edited, and the later line is the one kept."""
    reviews = newest_first("U1", list("abcdef"))
    edited = {**reviews[0], "text": "edited later", "rating": 1.0}
    later = {**reviews[1], "timestamp": reviews[1]["timestamp"] + 1}
    directory = make_domain([*reviews, edited, later], [meta(x) for x in "abcdef"])
    domain = load_domain(domain_files(directory, "Tiny"))
    assert domain.report.review_issues == {"duplicate review": 1}
    assert len(domain.interactions) == len(reviews) + 1
    assert domain.report.examples[0].endswith(
        f"Tiny.jsonl:1: the same review as line {len(reviews) + 1} (same user, item and "
        "time), which is kept"
    )
    first = int(np.flatnonzero(domain.interactions.line == len(reviews) + 1)[0])
    assert domain.interactions.rating[first] == 1.0  # the edit's rating, not the first one's
