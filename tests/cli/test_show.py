"""recmarket show prints text from outside (data, model replies) without letting a
terminal act on it."""

import sqlite3
from pathlib import Path

from typer.testing import CliRunner

from recmarket.cli import app
from recmarket.cli.show import printable
from recmarket.run.store import STORE_NAME

runner = CliRunner()


def test_terminal_controls_are_taken_out_of_every_text() -> None:
    hostile = "a\x1b[2Jb\x1b]0;owned\x07c\x1b]8;;http://x\x1b\\d\x08e\x9bf\x7fg\r"
    assert printable(hostile) == "abcdefg"
    assert printable({"k": ["x\x1b[31my", 3]}) == {"k": ["xy", 3]}
    assert printable("tab\tand\nnewline [agents]") == "tab\tand\nnewline [agents]"


def test_show_prints_no_escape_a_stored_text_carries(tmp_path: Path) -> None:
    out = tmp_path / "r"
    played = runner.invoke(
        app, ["run", "--domain", "Sports_and_Outdoors", "--requests", "6", "--out", str(out)]
    )
    assert played.exit_code == 0, played.output
    with sqlite3.connect(out / STORE_NAME) as db:  # a store whose text holds a control
        db.execute("UPDATE episodes SET profile = profile || ? WHERE ord = 0", ("\x1b]0;x\x07",))
    shown = runner.invoke(app, ["show", str(out), "--episode", "Sports_and_Outdoors:0"])
    assert shown.exit_code == 0, shown.output
    assert "\x1b" not in shown.stdout and "\x07" not in shown.stdout
    assert "Outcome:" in shown.stdout
