"""One writer per directory: an OS file lock that a run, a reproduce cell or a calibration
holds on the directory it writes, for as long as it writes there.

The lock is ``flock`` on a small file in the directory (``.recmarket.lock``, which records
the holder's pid). The kernel releases it when the holder's descriptor is closed, which
happens on any exit, SIGKILL included, so a dead writer never leaves a stale lock behind;
readers (``show``, ``export``, ``report``) never take it and never wait. Within one process
a directory may be opened for writing several times (a resumed cell, a store returned open
to a script): the holds are counted, and the lock goes with the last of them. A forked
child (a worker of a pool) closes its copies of the descriptors at once, so the lock lives
exactly as long as the writer, not as long as its longest-lived worker. The file itself is
left in place: removing it could let a second process lock a file the first no longer sees.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import threading
import weakref
from dataclasses import dataclass
from pathlib import Path

LOCK_NAME = ".recmarket.lock"


class DirectoryInUse(RuntimeError):
    """Another process writes the directory."""


@dataclass
class _Held:
    fd: int
    count: int = 0


_HELD: dict[str, _Held] = {}
_GUARD = threading.Lock()


def _holder(fd: int) -> str:
    """The pid the holder wrote, as far as it can be read."""
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        return "unknown"
    return text if text.isdigit() else "unknown"


def _acquire(directory: Path) -> int:
    directory.mkdir(parents=True, exist_ok=True)
    fd = os.open(directory / LOCK_NAME, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        pid = _holder(fd)
        os.close(fd)
        raise DirectoryInUse(
            f"{directory} is in use by another recmarket process (pid {pid}); wait for it "
            "or choose another --out"
        ) from None
    except BaseException:
        os.close(fd)
        raise
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    return fd


def _release(key: str, hold: _Held) -> None:
    with _GUARD:
        held = _HELD.get(key)
        if held is not hold:  # released already, or taken by the parent of this fork
            return
        held.count -= 1
        if held.count == 0:
            del _HELD[key]
            os.close(held.fd)


def _forget_in_child() -> None:
    """In a forked child: drop the parent's holds (closing a copy of the descriptor leaves
    the parent's lock alone). The guard may have been held by another thread at the fork."""
    global _GUARD
    _GUARD = threading.Lock()
    for held in _HELD.values():
        with contextlib.suppress(OSError):
            os.close(held.fd)
    _HELD.clear()


os.register_at_fork(after_in_child=_forget_in_child)


class WriterLock:
    """This process's hold on ``directory`` as its only writer; ``DirectoryInUse`` (one line
    naming the directory and the holder's pid) when another process holds it. Released by
    ``close``, or when the object is collected, and by the kernel when the process ends."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        key = str(directory.resolve())
        with _GUARD:
            held = _HELD.get(key)
            if held is None:
                held = _HELD[key] = _Held(_acquire(directory))
            held.count += 1
        self._release = weakref.finalize(self, _release, key, held)

    def close(self) -> None:
        self._release()

    def __enter__(self) -> WriterLock:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
