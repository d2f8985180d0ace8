"""What `recmarket report` is given: a reproduce directory, or a single run's; and a
directory it cannot read is refused without a trace."""

from pathlib import Path

from typer.testing import CliRunner

from recmarket.cli import app
from recmarket.report.data import load_cells

runner = CliRunner()


def test_a_single_run_is_reported_as_one_cell(tmp_path: Path) -> None:
    run_dir = tmp_path / "mine"
    played = runner.invoke(
        app, ["run", "--domain", "Sports_and_Outdoors", "--requests", "12", "--out", str(run_dir)]
    )
    assert played.exit_code == 0, played.output
    cells = load_cells([run_dir])
    assert list(cells) == ["run"] and list(cells["run"]) == ["mine"]
    assert len(cells["run"]["mine"].rows) == 12
    reported = runner.invoke(app, ["report", str(run_dir), "--workers", "1"])
    assert reported.exit_code == 0, reported.output
    assert (run_dir / "report" / "report.html").stat().st_size > 0
    assert "scale: 1" in reported.stdout  # played as its settings say, nothing cut


def test_a_refused_directory_leaves_nothing_behind(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    refused = runner.invoke(app, ["report", str(empty)])
    assert refused.exit_code == 2
    assert "no plan.json and no run.sqlite" in refused.stderr
    assert list(empty.iterdir()) == []  # no report/, no lock file
