"""Reading the official Amazon Reviews'23 raw files: streamed, gzip or plain, with honest
accounting of every line that could not be used.

Official downloads named ``.gz`` are sometimes not compressed, and unpacked files are
sometimes renamed, so compression is decided by the gzip magic bytes, never by the name.
Lines are streamed one at a time, so a 1.5 GB review file is never held in memory, and a
line longer than ``MAX_LINE_BYTES`` is skipped (and counted) without being held whole: the
longest real review or listing is a few hundred kilobytes, so such a line is damage.
"""

from __future__ import annotations

import gzip
import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, cast

GZIP_MAGIC = b"\x1f\x8b"
MAX_REPORTED = 5
MAX_LINE_BYTES = 10 * 2**20


class DataError(ValueError):
    """A data file cannot be used; the message names the file and, where known, the line."""


def is_gzip(path: Path) -> bool:
    """Whether the file starts with gzip's magic bytes, whatever its name says."""
    with path.open("rb") as fh:
        return fh.read(2) == GZIP_MAGIC


def open_bytes(path: Path) -> IO[bytes]:
    """Open a raw file as bytes, decompressing when its first bytes say gzip."""
    if not path.is_file():
        raise DataError(f"{path}: no such file")
    if is_gzip(path):
        return cast(IO[bytes], gzip.open(path, "rb"))
    return path.open("rb")


@dataclass
class LoadIssues:
    """Lines skipped while loading one file: counted by reason, the first few kept verbatim.

    With ``strict`` the first problem stops the load instead, with the same message.
    """

    path: Path
    strict: bool = False
    counts: Counter[str] = field(default_factory=Counter)
    examples: list[str] = field(default_factory=list)

    def skip(self, line: int, reason: str) -> None:
        """Count a skipped line by its reason and keep the first few verbatim; under
        ``strict``, stop with it."""
        message = f"{self.path}:{line}: {reason}"
        if self.strict:
            raise DataError(message)
        self.counts[reason.split(":")[0]] += 1
        if len(self.examples) < MAX_REPORTED:
            self.examples.append(message)

    def duplicate(self, line: int, kept: int) -> None:
        """A review that a later line repeats (same user, item and time: crawled twice, or
        edited since): dropped for the later one and counted. Not an error even under
        ``strict``: the data is intact, only repeated, and kept twice a review would sit in
        its own user's history."""
        self.counts["duplicate review"] += 1
        if len(self.examples) < MAX_REPORTED:
            self.examples.append(
                f"{self.path}:{line}: the same review as line {kept} (same user, item and "
                "time), which is kept"
            )

    @property
    def skipped(self) -> int:
        """Lines skipped, for every reason."""
        return sum(self.counts.values())


def iter_records(path: Path, issues: LoadIssues) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield (line number, JSON object) for every parseable object line; skip the rest."""
    for lineno, _, record in iter_lines(path, issues):
        yield lineno, record


def iter_lines(path: Path, issues: LoadIssues) -> Iterator[tuple[int, bytes, dict[str, Any]]]:
    """Yield (line number, raw line, JSON object) for every parseable object line.

    Blank lines are ignored silently (trailing newlines are common); anything else that is
    not a JSON object is reported through ``issues``. A truncated or corrupt gzip stream is
    not a skippable line: it stops the load with the line it reached.
    """
    lineno = 0
    try:
        with open_bytes(path) as fh:
            for lineno, line in enumerate(bounded_lines(fh, MAX_LINE_BYTES), start=1):
                if line is None:
                    issues.skip(lineno, f"line longer than {MAX_LINE_BYTES // 2**20} MB")
                    continue
                if not line.strip():
                    continue
                try:  # decoded line by line, so one bad byte costs one line
                    record = _DECODER.decode(line.decode("utf-8"))
                except json.JSONDecodeError as exc:
                    issues.skip(lineno, f"invalid JSON: {exc.msg} at column {exc.colno}")
                    continue
                except UnicodeDecodeError as exc:
                    issues.skip(lineno, f"invalid UTF-8: {exc.reason} at byte {exc.start}")
                    continue
                except ValueError as exc:
                    issues.skip(lineno, str(exc))
                    continue
                except RecursionError:
                    issues.skip(lineno, "nested too deep to be a record")
                    continue
                if not isinstance(record, dict):
                    issues.skip(lineno, f"not a JSON object: {type(record).__name__}")
                    continue
                yield lineno, line, record
    except (EOFError, gzip.BadGzipFile, OSError) as exc:
        raise DataError(
            f"{path}:{lineno + 1}: compressed stream is truncated or corrupt ({exc})"
        ) from exc


def bounded_lines(fh: IO[bytes], limit: int) -> Iterator[bytes | None]:
    """The file's lines, each None where it runs past ``limit`` bytes: the rest of such a
    line is read through in ``limit``-sized pieces and dropped, so memory stays bounded by
    the limit however long the line."""
    while line := fh.readline(limit + 1):
        if len(line) <= limit or line.endswith(b"\n"):  # whole: at most limit bytes and \n
            yield line
            continue
        while (rest := fh.readline(limit)) and not rest.endswith(b"\n"):
            pass
        yield None


def _no_constant(name: str) -> Any:
    raise ValueError(f"non-finite number: {name}")


_DECODER = json.JSONDecoder(parse_constant=_no_constant)  # one decoder, not one per line
