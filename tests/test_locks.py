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

HOLD = """
import sys, time
from pathlib import Path
from recmarket.locks import WriterLock
lock = WriterLock(Path(sys.argv[1]))
print("held", flush=True)
time.sleep(60)
"""


def holder(directory: Path) -> subprocess.Popen:
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(directory)], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
    return proc


def test_a_second_process_is_refused_naming_the_holder_and_free_once_it_is_killed(
    tmp_path: Path,
) -> None:
    proc = holder(tmp_path / "out")
    try:
        with pytest.raises(DirectoryInUse) as refused:
            WriterLock(tmp_path / "out")
        message = str(refused.value)
        assert f"in use by another recmarket process (pid {proc.pid})" in message
        assert str(tmp_path / "out") in message and "choose another --out" in message
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    with WriterLock(tmp_path / "out"):  # the kernel released it with the killed holder
        assert (tmp_path / "out" / LOCK_NAME).read_text().strip() == str(os.getpid())


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
