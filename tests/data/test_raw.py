import gzip
from pathlib import Path

import pytest

from recmarket.data.raw import DataError, LoadIssues, is_gzip, iter_records
from tests.fixtures import write_jsonl


def test_gzip_detected_by_magic_bytes_not_name(tmp_path: Path) -> None:
    plain_named_gz = write_jsonl(tmp_path / "a.jsonl.gz", [{"x": 1}])  # not compressed
    gz_named_plain = write_jsonl(tmp_path / "b.jsonl", [{"x": 2}], gz=True)
    assert not is_gzip(plain_named_gz) and is_gzip(gz_named_plain)
    for path, value in ((plain_named_gz, 1), (gz_named_plain, 2)):
        issues = LoadIssues(path)
        assert [r for _, r in iter_records(path, issues)] == [{"x": value}]


def test_bad_lines_are_skipped_counted_and_located(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "r.jsonl", [{"a": 1}, "{broken", "", "[1, 2]", {"a": 2}])
    issues = LoadIssues(path)
    records = list(iter_records(path, issues))
    assert [(n, r["a"]) for n, r in records] == [(1, 1), (5, 2)]
    assert issues.skipped == 2  # the blank line is not an issue
    assert issues.examples[0].startswith(f"{path}:2: invalid JSON")
    assert issues.examples[1] == f"{path}:4: not a JSON object: list"


def test_strict_stops_at_first_bad_line_with_its_location(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "r.jsonl", [{"a": 1}, "{broken", {"a": 2}])
    with pytest.raises(DataError, match=r"r\.jsonl:2: invalid JSON"):
        list(iter_records(path, LoadIssues(path, strict=True)))


def test_truncated_gzip_is_an_error_not_a_silent_short_file(tmp_path: Path) -> None:
    whole = gzip.compress(b"".join(b'{"a": %d}\n' % i for i in range(20000)))
    path = tmp_path / "cut.jsonl.gz"
    path.write_bytes(whole[: len(whole) // 2])
    with pytest.raises(DataError, match="truncated or corrupt"):
        list(iter_records(path, LoadIssues(path)))


def test_missing_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="no such file"):
        list(iter_records(tmp_path / "nope.jsonl", LoadIssues(tmp_path / "nope.jsonl")))
