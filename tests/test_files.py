"""Files written whole or not at all, and failures that name the file."""

import errno
import os
from pathlib import Path

import pytest

from recmarket.files import replaced, sweep_temporaries, write_text_whole


def test_a_file_is_replaced_whole_through_a_temporary_name_of_its_own(tmp_path: Path) -> None:
    path = tmp_path / "plan.json"
    path.write_text("old")
    with replaced(path) as first, replaced(path) as second:
        assert first != second and first.parent == tmp_path and first.suffix == ".json"
        assert first.name.startswith(".plan.json.")
        first.write_text("first")
        second.write_text("second")
        assert path.read_text() == "old"  # readers see the earlier file until the rename
    assert path.read_text() == "first"  # the last writer to finish
    assert os.listdir(tmp_path) == ["plan.json"]


def test_a_failed_write_keeps_the_earlier_file_and_names_it(tmp_path: Path) -> None:
    path = tmp_path / "report.html"
    path.write_text("earlier")
    full = pytest.raises(OSError, match=r"No space left on device: '.*report\.html'")
    with full as failed, replaced(path) as temporary:
        temporary.write_text("half")
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))  # names no file
    assert failed.value.errno == errno.ENOSPC
    assert path.read_text() == "earlier" and os.listdir(tmp_path) == ["report.html"]
    # the temporary's name, which the user never sees, is replaced by the file's
    with pytest.raises(OSError, match=r"'.*report\.html'"), replaced(path) as temporary:
        raise PermissionError(errno.EACCES, "Permission denied", str(temporary))
    with pytest.raises(KeyboardInterrupt), replaced(path):
        raise KeyboardInterrupt
    assert os.listdir(tmp_path) == ["report.html"]


def test_text_is_written_whole(tmp_path: Path) -> None:
    write_text_whole(tmp_path / "a.md", "é\n")
    assert (tmp_path / "a.md").read_bytes() == "é\n".encode()


@pytest.mark.parametrize(("umask", "mode"), [(0o022, 0o644), (0o002, 0o664), (0o077, 0o600)])
def test_a_file_written_whole_has_the_mode_the_umask_gives(
    tmp_path: Path, umask: int, mode: int
) -> None:
    before = os.umask(umask)
    try:
        write_text_whole(tmp_path / "report.html", "shared")
    finally:
        os.umask(before)
    assert (tmp_path / "report.html").stat().st_mode & 0o777 == mode


def test_a_killed_writers_temporary_files_are_swept_and_nothing_else(tmp_path: Path) -> None:
    figures = tmp_path / "figures"
    figures.mkdir()
    killed = figures / ".fig8.png.0123456789ab.part.png"  # as a SIGKILL leaves one
    killed.write_bytes(b"half")
    mine = [figures / ".hidden.png", figures / "fig8.png", tmp_path / ".plan.json.x.part.json"]
    for path in mine:
        path.write_text("keep")
    assert sweep_temporaries(tmp_path) == 1
    assert not killed.exists() and all(path.exists() for path in mine)
