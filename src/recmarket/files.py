"""Files written whole or not at all.

A file that readers may open at any moment (a report, a plan, a model card) is written to a
temporary name of its own beside it and renamed into place, so a reader sees the earlier
file or the new one, never a half. The temporary name is unique to the writer (two writers
never share one, as a fixed ``.tmp`` name made them), starts with a dot, and is removed when
the write fails; a writer killed outright leaves it, and the next writer that holds the
directory's lock sweeps it (``sweep_temporaries``). A failure is an ``OSError`` that names
the file it was writing, whatever the library underneath left out (a full disk's error from
a compressor names nothing).
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
from collections.abc import Iterator
from pathlib import Path

# A temporary file's name: the target's, a token of its writer's and the target's suffix
# (``.report.html.3fa9c2e1d0b4.part.html``); a killed writer's are found by it and swept.
TEMPORARY = re.compile(r"^\..+\.[0-9a-f]{12}\.part(\.[^.]*)?$")


@contextlib.contextmanager
def replaced(path: Path) -> Iterator[Path]:
    """A temporary path beside ``path`` (with its suffix, for writers that go by it) to write
    to; renamed onto ``path`` when the block ends, removed if it raises. The file is made
    with the mode the umask gives a new file (0644 under 022), as ``open`` would make
    ``path`` itself: a report shared with a group stays readable."""
    temporary = _created(path)
    try:
        try:
            yield temporary
            temporary.replace(path)
        except OSError as exc:
            raise naming(exc, path) from exc
    except BaseException:
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise


def _created(path: Path) -> Path:
    """A new empty temporary file beside ``path``, made with mode 0666 less the umask."""
    while True:
        name = path.parent / f".{path.name}.{secrets.token_hex(6)}.part{path.suffix}"
        try:
            os.close(os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666))
        except FileExistsError:  # another writer's token: draw again
            continue
        except OSError as exc:
            raise naming(exc, path) from exc
        return name


def sweep_temporaries(directory: Path, below: bool = True) -> int:
    """Remove the temporary files killed writers left in ``directory`` (and, with ``below``,
    its subdirectories); for a writer that holds the directory's lock, so no live writer's
    file is taken. Returns how many were removed."""
    candidates = directory.rglob(".*.part*") if below else directory.glob(".*.part*")
    found = [f for f in candidates if TEMPORARY.match(f.name) and f.is_file()]
    for leftover in found:
        with contextlib.suppress(FileNotFoundError):
            leftover.unlink()
    return len(found)


def write_text_whole(path: Path, text: str) -> None:
    """``path.write_text(text)``, whole or not at all."""
    with replaced(path) as temporary:
        temporary.write_text(text, encoding="utf-8")


def naming(exc: OSError, path: Path) -> OSError:
    """``exc`` with ``path`` as its file name where it named none (or named the temporary
    file, which the user never sees)."""
    if exc.filename is not None and Path(exc.filename).name.startswith(f".{path.name}."):
        exc.filename = None
    if exc.filename is not None:
        return exc
    if exc.errno is None:
        return OSError(f"{path}: {exc}")
    return type(exc)(exc.errno, exc.strerror or str(exc), str(path))
