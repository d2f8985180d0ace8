import gzip
import io
import json
import tracemalloc
from pathlib import Path

import pytest

from recmarket.data import raw
from recmarket.data.raw import DataError, LoadIssues, bounded_lines, is_gzip, iter_records
from recmarket.data.reviews import read_review_lines
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


def test_hostile_lines_cost_one_line_each(tmp_path: Path) -> None:
    """Invalid UTF-8, NaN and Infinity, and a line nested 200,000 deep are skipped with
    their line numbers; the lines around them load."""
    path = tmp_path / "r.jsonl"
    path.write_bytes(
        b'{"a": 1}\n'
        b'{"a": "caf\xe9"}\n'
        b'{"a": NaN}\n'
        b'{"a": Infinity}\n' + b"[" * 200_000 + b"]" * 200_000 + b"\n"
        b'{"a": 2}\n'
    )
    issues = LoadIssues(path)
    assert [(n, r["a"]) for n, r in iter_records(path, issues)] == [(1, 1), (6, 2)]
    reasons = " | ".join(issues.examples)
    assert f"{path}:2: invalid UTF-8" in reasons
    assert f"{path}:3: non-finite number: NaN" in reasons
    assert f"{path}:4: non-finite number: Infinity" in reasons
    assert f"{path}:5: nested too deep" in reasons


def test_absurd_timestamps_are_skipped_not_crashed_on(tmp_path: Path) -> None:
    from recmarket.data.reviews import scan_reviews
    from tests.fixtures import review

    rows = [
        review("u", "i1", 10**30),
        review("u", "i2", 2**63),
        review("u", "i3", 1_600_000_000_000),
    ]
    path = write_jsonl(tmp_path / "r.jsonl", rows)
    issues = LoadIssues(path)
    table = scan_reviews(path, issues)
    assert len(table) == 1 and issues.skipped == 2
    assert all("timestamp out of range" in e for e in issues.examples)


def test_a_line_past_the_limit_is_skipped_counted_and_never_held_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Lines up to the limit load, a longer one is one counted skip whatever its length,
    the numbering after it holds in both passes, and memory stays near the limit."""
    monkeypatch.setattr(raw, "MAX_LINE_BYTES", 2**20)
    fitting = json.dumps({"a": "x" * (2**20 - 10)}).encode()
    assert len(fitting) == 2**20 - 1
    path = tmp_path / "r.jsonl"
    path.write_bytes(
        b'{"a": 1}\n' + fitting + b"\n" + b'{"a": "' + b"y" * 12 * 2**20 + b'"}\n{"a": 2}\n'
    )
    issues = LoadIssues(path)
    tracemalloc.start()
    loaded = [(n, len(r["a"]) if n == 2 else r["a"]) for n, r in iter_records(path, issues)]
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert loaded == [(1, 1), (2, 2**20 - 10), (4, 2)]
    assert issues.counts == {"line longer than 1 MB": 1} and issues.examples[0].startswith(
        f"{path}:3: line longer than 1 MB"
    )
    assert peak < 9 * 2**20  # the 12 MB line was read in pieces, never whole
    assert read_review_lines(path, {1, 4}) == {1: {"a": 1}, 4: {"a": 2}}


def test_bounded_lines_cut_exactly_at_the_limit() -> None:
    text = b"abcd\nabcde\nabcdef\n" + b"z" * 23 + b"\nlast"
    assert list(bounded_lines(io.BytesIO(text), 5)) == [b"abcd\n", b"abcde\n", None, None, b"last"]
