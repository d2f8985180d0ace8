"""One writer per directory: a second process is refused with the holder's pid, the lock
dies with its holder (SIGKILL included), holds within a process are counted, and a forked
child keeps none of its parent's."""

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from recmarket.locks import LOCK_NAME, DirectoryInUse, UnsafeLock, WriterLock
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


def test_a_writer_that_waits_queues_behind_the_holder_and_gives_up_naming_it(
    tmp_path: Path,
) -> None:
    with lock_held_elsewhere(tmp_path / "out") as pid:
        with pytest.raises(DirectoryInUse, match=rf"\(pid {pid}\) \(waited 0 s\)"):
            WriterLock(tmp_path / "out", wait=0.2)
        threading.Timer(0.3, os.kill, (pid, signal.SIGKILL)).start()
        with WriterLock(tmp_path / "out", wait=30):  # taken once the holder goes
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


def refused(directory: Path) -> str:
    with pytest.raises(UnsafeLock) as refusal:
        WriterLock(directory)
    message = str(refusal.value)
    assert str(directory / LOCK_NAME) in message and "choose another --out" in message
    return message


def test_a_lock_path_that_links_elsewhere_is_refused_and_its_target_untouched(
    tmp_path: Path,
) -> None:
    """A run directory received from someone else cannot make a run write where its lock
    path points: a symbolic link (dangling or not) or a second name of another file."""
    victim = tmp_path / "victim.txt"
    victim.write_text("IMPORTANT\n")
    (tmp_path / "linked").mkdir()
    (tmp_path / "linked" / LOCK_NAME).symlink_to(victim)
    assert "a symbolic link" in refused(tmp_path / "linked")
    (tmp_path / "dangling").mkdir()
    (tmp_path / "dangling" / LOCK_NAME).symlink_to(tmp_path / "nowhere")
    assert "a symbolic link" in refused(tmp_path / "dangling")
    assert not (tmp_path / "nowhere").exists()
    (tmp_path / "hard").mkdir()
    os.link(victim, tmp_path / "hard" / LOCK_NAME)
    assert "a hard link" in refused(tmp_path / "hard")
    assert victim.read_text() == "IMPORTANT\n"


def test_a_lock_path_that_is_not_a_lock_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "fifo").mkdir()
    os.mkfifo(tmp_path / "fifo" / LOCK_NAME)
    assert "not a regular file" in refused(tmp_path / "fifo")
    (tmp_path / "folder" / LOCK_NAME).mkdir(parents=True)
    assert "not a regular file" in refused(tmp_path / "folder")
    (tmp_path / "text").mkdir()
    (tmp_path / "text" / LOCK_NAME).write_text("my notes, not a pid\n")
    assert "something other than a process id" in refused(tmp_path / "text")
    assert (tmp_path / "text" / LOCK_NAME).read_text() == "my notes, not a pid\n"


def test_a_lock_file_left_by_an_earlier_run_is_taken_again(tmp_path: Path) -> None:
    (tmp_path / LOCK_NAME).write_text("12345\n")  # a finished writer's pid
    with WriterLock(tmp_path):
        assert (tmp_path / LOCK_NAME).read_text().strip() == str(os.getpid())
    (tmp_path / LOCK_NAME).write_text("")
    WriterLock(tmp_path).close()
