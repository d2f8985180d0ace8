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
import errno
import fcntl
import os
import stat
import threading
import time
import weakref
from dataclasses import dataclass
from pathlib import Path

LOCK_NAME = ".recmarket.lock"
WAIT_STEP = 0.05  # seconds between tries of a writer that waits
# How long a brief writer (a plan's merge, a report) queues behind another before it gives
# up: a report of a million episodes takes about a minute to write.
BRIEF_WAIT = 300.0
# Why a lock file cannot be made: the directory is not this process's to write (a read-only
# mount, another user's files). A reader needs no lock; a writer stops on these.
UNWRITABLE = frozenset({errno.EROFS, errno.EACCES, errno.EPERM})


class DirectoryInUse(RuntimeError):
    """Another process writes the directory."""


class UnsafeLock(DirectoryInUse):
    """The lock path is not a lock file recmarket may open and write: a symbolic link, a
    FIFO, a directory, a file with other links, or a file with other contents. A run
    directory received from someone else must not make a run write where the link points."""


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


# What a lock file holds: its holder's pid and a newline (at most 20 digits), or nothing.
LOCK_BYTES = 32


def _open_lock(path: Path) -> int:
    """The lock file's descriptor: created here, or an existing one that is a lock file
    (a regular file with no other link, holding a pid or nothing). A symbolic link is never
    followed, and nothing else at the path is opened for writing or truncated."""
    flags = os.O_RDWR | os.O_CLOEXEC | os.O_NOFOLLOW | os.O_NONBLOCK
    try:
        return os.open(path, flags | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        pass
    try:
        fd = os.open(path, flags)
    except OSError as error:
        if error.errno not in (errno.ELOOP, errno.EISDIR, errno.ENXIO):
            raise  # a read-only or unreadable directory: the error names the path
        kind = "a symbolic link" if error.errno == errno.ELOOP else "not a regular file"
        raise UnsafeLock(_refusal(path, f"it is {kind}")) from None
    info = os.fstat(fd)
    found = os.pread(fd, LOCK_BYTES + 1, 0).strip() if stat.S_ISREG(info.st_mode) else b""
    if not stat.S_ISREG(info.st_mode):
        problem = "it is not a regular file"
    elif info.st_nlink != 1:
        problem = f"the file has {info.st_nlink} names (a hard link)"
    elif len(found) > LOCK_BYTES or (found and not found.isdigit()):
        problem = "it holds something other than a process id"
    else:
        return fd
    os.close(fd)
    raise UnsafeLock(_refusal(path, problem))


def _refusal(path: Path, problem: str) -> str:
    return (
        f"{path}: refusing to use it as this directory's writer lock: {problem}; remove it "
        "if the directory is yours, or choose another --out"
    )


class _Busy(DirectoryInUse):
    """Another process holds the lock now (a writer that waits tries again)."""


def _acquire(directory: Path, waited: float) -> int:
    """The lock's descriptor, taken without waiting; ``_Busy`` naming the holder (and how
    long this writer ``waited`` already) while another process holds it."""
    directory.mkdir(parents=True, exist_ok=True)
    fd = _open_lock(directory / LOCK_NAME)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        pid = _holder(fd)
        os.close(fd)
        after = f" (waited {waited:.0f} s)" if waited else ""
        raise _Busy(
            f"{directory} is in use by another recmarket process (pid {pid}){after}; wait "
            "for it or choose another --out"
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


def writer_elsewhere(directory: Path) -> str | None:
    """The pid (as the holder wrote it) of another process writing ``directory`` now, else
    None: for a reader that must not read a run half-written (a calibration). The lock is
    probed, never created, and a link at its path is not followed."""
    with _GUARD:
        if str(directory.resolve()) in _HELD:
            return None  # this process is the writer
    flags = os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW | os.O_NONBLOCK
    try:
        fd = os.open(directory / LOCK_NAME, flags)
    except OSError:
        return None  # no lock file, or none a writer could have taken
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return _holder(fd)
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


class WriterLock:
    """This process's hold on ``directory`` as its only writer; ``DirectoryInUse`` (one line
    naming the directory and the holder's pid) when another process holds it, at once or
    after ``wait`` seconds (for a brief writer, such as a plan's merge or a report, that
    had better queue behind another than fail). Released by ``close``, or when the object
    is collected, and by the kernel when the process ends."""

    def __init__(self, directory: Path, wait: float = 0.0) -> None:
        self.directory = directory
        key = str(directory.resolve())
        deadline = time.monotonic() + wait
        while True:  # the waits between tries hold no guard: other threads go on
            try:
                held = self._hold(key, wait - max(deadline - time.monotonic(), 0.0))
                break
            except _Busy:
                if time.monotonic() >= deadline:
                    raise
                time.sleep(WAIT_STEP)
        self._release = weakref.finalize(self, _release, key, held)

    def _hold(self, key: str, waited: float) -> _Held:
        with _GUARD:
            held = _HELD.get(key)
            if held is None:
                held = _HELD[key] = _Held(_acquire(self.directory, waited))
            held.count += 1
            return held

    def close(self) -> None:
        """Give up this hold; the lock goes with the process's last."""
        self._release()

    def __enter__(self) -> WriterLock:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
