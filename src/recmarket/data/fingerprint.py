"""What a run read, by content: a SHA-256 of every data file, kept with the file's size and
modification time.

A store made over a directory of the user's own files is theirs only while the files hold
the same bytes: a meta file edited between a kill and a resume would otherwise give a store
whose first episodes came from one catalogue and the rest from another. The path says
nothing of that, so a run's identity, and everything kept by data (a validity card), holds
the files' digests. Size and modification time serve as the fast first check: a file whose
stamp matches the one recorded is taken as the same without being read again; a file with
another stamp is read and compared by content, so a file copied or touched, not changed,
still matches. Within one process a digest is computed once per stamp.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from recmarket.data.domain import domain_files
from recmarket.data.raw import DataError

CHUNK = 1 << 20  # bytes read at a time: a category's file may hold gigabytes
_known: dict[tuple[str, int, int], str] = {}  # (path, size, mtime_ns) -> sha256, this process


class FileDigest(BaseModel):
    """One data file as a run read it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    size: int = Field(ge=0)
    mtime_ns: int
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(CHUNK):
            digest.update(block)
    return digest.hexdigest()


def file_digest(path: Path, known: FileDigest | None = None) -> FileDigest:
    """``path``'s digest; where ``known`` has its size and modification time, that one (the
    fast first check), else its bytes hashed (once per stamp in a process)."""
    status = path.stat()
    if known is not None and (known.size, known.mtime_ns) == (status.st_size, status.st_mtime_ns):
        return known
    stamp = (str(path.resolve()), status.st_size, status.st_mtime_ns)
    if stamp not in _known:
        _known[stamp] = _sha256(path)
    return FileDigest(size=status.st_size, mtime_ns=status.st_mtime_ns, sha256=_known[stamp])


def domains_read(directory: Path, domains: Iterable[str]) -> list[Path]:
    """The review and meta files a run over ``domains`` of ``directory`` reads (a domain
    without its files is left to the reader, which names what is missing)."""
    paths: list[Path] = []
    for name in domains:
        try:
            files = domain_files(directory, name)
        except DataError:  # the run's loading says it, with the domains there
            continue
        paths += [files.reviews, files.meta]
    return paths


def digests(paths: Iterable[Path], known: Mapping[str, FileDigest] = {}) -> dict[str, FileDigest]:
    """Every file's digest by its name, the ``known`` ones (by name) as the fast check."""
    return {p.name: file_digest(p, known.get(p.name)) for p in paths}


def read_digests(recorded: str) -> dict[str, FileDigest]:
    """Digests as a manifest records them (JSON by file name); ``ValueError`` if damaged."""
    try:
        found = json.loads(recorded or "{}")
        if not isinstance(found, dict):
            raise ValueError("not a table of files")
        return {str(name): FileDigest.model_validate(each) for name, each in found.items()}
    except (ValueError, ValidationError) as error:
        first = str(error).splitlines()[0]
        raise ValueError(f"the recorded data digests are damaged ({first})") from None


def changed_files(
    recorded: Mapping[str, FileDigest], now: Mapping[str, FileDigest], where: Path
) -> str:
    """Which of the files differ in content (or were added or removed), in words naming
    each; empty when every one holds the bytes recorded."""
    said = []
    for name in sorted(recorded.keys() | now.keys()):
        old, new = recorded.get(name), now.get(name)
        if old is None or new is None:
            said.append(f"{where / name} {'is new' if old is None else 'is gone'}")
        elif old.sha256 != new.sha256:
            said.append(f"{where / name} changed (sha256 {old.sha256[:12]} -> {new.sha256[:12]})")
    return "; ".join(said)
