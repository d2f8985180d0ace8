"""One writer per directory: a second process is refused with the holder's pid, the lock
dies with its holder (SIGKILL included), holds within a process are counted, and a forked
child keeps none of its parent's."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from recmarket.locks import LOCK_NAME, DirectoryInUse, WriterLock
from tests.fixtures import lock_held_elsewhere


def test_a_second_process_is_refused_naming_the_holder_and_free_once_it_is_killed(
    tmp_path: Path,
) -> None:
    with lock_held_elsewhere(tmp_path / "out") as pid:
        with pytest.raises(DirectoryInUse) as refused:
            WriterLock(tmp_path / "out")
        message = str(refused.value)
        assert f"in use by another recmarket process (pid {pid})" in message
        assert str(tmp_path / "out") in message and "choose another --out" in message
        os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 5
        while True:  # the kernel releases it as the killed holder goes
            try:
                lock = WriterLock(tmp_path / "out")
                break
            except DirectoryInUse:
                assert time.monotonic() < deadline, "the lock outlived its killed holder"
                time.sleep(0.01)
    assert (tmp_path / "out" / LOCK_NAME).read_text().strip() == str(os.getpid())
    lock.close()


def test_holds_within_one_process_are_counted(tmp_path: Path) -> None:
    first, second = WriterLock(tmp_path), WriterLock(tmp_path)
    first.close()
    first.close()  # closing twice releases one hold only
    with pytest.raises(subprocess.CalledProcessError):
        holder_exit(tmp_path)
    second.close()
    holder_exit(tmp_path)  # now another process may take it


def holder_exit(directory: Path) -> None:
    code = "import sys; from pathlib import Path; from recmarket.locks import WriterLock; "
    code += "WriterLock(Path(sys.argv[1]))"
    subprocess.run([sys.executable, "-c", code, str(directory)], check=True, capture_output=True)


def test_a_forked_child_keeps_none_of_its_parents_holds(tmp_path: Path) -> None:
    lock = WriterLock(tmp_path)
    child = os.fork()
    if child == 0:  # the child outlives its parent's hold, as an orphaned worker would
        time.sleep(3)
        os._exit(0)
    try:
        lock.close()
        holder_exit(tmp_path)  # the child's copy of the descriptor did not keep the lock
    finally:
        os.kill(child, signal.SIGKILL)
        os.waitpid(child, 0)
