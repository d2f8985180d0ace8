"""Files written whole or not at all.

A file that readers may open at any moment (a report, a plan, a model card) is written to a
temporary name of its own beside it and renamed into place, so a reader sees the earlier
file or the new one, never a half. The temporary name is unique to the writer (two writers
never share one, as a fixed ``.tmp`` name made them), starts with a dot, and is removed when
the write fails. A failure is an ``OSError`` that names the file it was writing, whatever
the library underneath left out (a full disk's error from a compressor names nothing).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def replaced(path: Path) -> Iterator[Path]:
    """A temporary path beside ``path`` (with its suffix, for writers that go by it) to write
    to; renamed onto ``path`` when the block ends, removed if it raises."""
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}.", suffix=path.suffix)
    os.close(fd)
    temporary = Path(name)
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


def write_text_whole(path: Path, text: str) -> None:
    """``path.write_text(text)``, whole or not at all."""
    with replaced(path) as temporary:
        temporary.write_text(text, encoding="utf-8")


def naming(exc: OSError, path: Path) -> OSError:
    """``exc`` with ``path`` as its file name where it named none (or named the temporary
    file, which the user never sees)."""
    if exc.filename is not None and Path(exc.filename).name.startswith(f".{path.stem}."):
        exc.filename = None
    if exc.filename is not None:
        return exc
    if exc.errno is None:
        return OSError(f"{path}: {exc}")
    return type(exc)(exc.errno, exc.strerror or str(exc), str(path))
