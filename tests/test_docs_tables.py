"""The docs' tables are what the code makes: a small reproduce, written into tables by
scripts/docs_tables.py, equals the tables the docs hold at that scale (those of larger runs
name their commit and command and are left alone at this scale), and the tables made from
the code alone (parameters, the first run, the data's realism) are what it makes now."""

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from recmarket.cli import app
from tests.cli.test_run_cli import runner

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "docs_tables.py"


@pytest.mark.slow  # a reproduce of 2,160 episodes and its report
def test_the_docs_tables_of_a_small_run_are_what_the_code_makes(tmp_path: Path) -> None:
    out = tmp_path / "small"
    made = runner.invoke(app, ["reproduce", "accountability", "--scale", "0.05", "--out", str(out)])
    assert made.exit_code == 0, made.output
    check = subprocess.run(
        [sys.executable, str(SCRIPT), str(out), "--check", "--keep-report"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert check.returncode == 0, check.stdout + check.stderr
    assert "differs" not in check.stdout


def test_a_table_between_markers_is_replaced_whole_and_a_changed_one_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The marker logic on a doc of its own: the table of the run's scale is written, one
    of another scale is left alone, one that names its experiment comes from the run that
    holds it, and --check names a table that differs."""
    sys.path.insert(0, str(SCRIPT.parent))
    try:
        import docs_tables
    finally:
        sys.path.remove(str(SCRIPT.parent))
    doc = tmp_path / "page.md"
    doc.write_text(
        "intro\n<!-- table paper-summary scale=0.5 -->\nold\n<!-- /table paper-summary -->\n"
        "<!-- table paper-summary scale=1 -->\nkept\n<!-- /table paper-summary -->\n"
        "<!-- table paper-summary scale=0.5 from=study -->\nmine\n<!-- /table paper-summary -->\n"
    )
    monkeypatch.setattr(docs_tables, "DOCS", (doc,))
    monkeypatch.setattr(docs_tables, "ROOT", tmp_path)

    def made(body: str, study: str = "") -> dict[str, object]:
        return {
            "main": docs_tables.Rendered(
                tmp_path / "main", 0.5, frozenset({"x"}), {"paper-summary": body}
            ),
            "study": docs_tables.Rendered(
                tmp_path / "study", 0.5, frozenset({"study"}), {"paper-summary": study}
            ),
        }

    runs = [tmp_path / "main", tmp_path / "study"]
    body = "`summary`\n\n_Made by x at commit abc._\n"
    study = "`study`\n\n_Made by z at commit abc._\n"
    found = made(body, study)
    monkeypatch.setattr(docs_tables, "rendered", lambda run: found[run.name])
    assert docs_tables.update(runs, check=True) == ["page.md: paper-summary"] * 2
    assert "old" in doc.read_text()  # --check writes nothing
    docs_tables.update(runs, check=False)
    text = doc.read_text()
    assert "`summary`" in text and "kept" in text and "old" not in text
    assert "`study`" in text and "mine" not in text  # from the run holding its experiment
    found = made("`summary`\n\n_Made by y at commit def._\n", study)
    assert docs_tables.update(runs, check=True) == []  # another commit, the same table
    found = made("`other`\n\n_Made by y._\n", "`study 2`\n\n_Made by z._\n")
    docs_tables.update(runs, check=False, only_from="study")  # one study's own tables
    text = doc.read_text()
    assert "`study 2`" in text and "`summary`" in text and "`other`" not in text


@pytest.mark.slow  # a subprocess that remakes every code table (about 8 s)
def test_the_tables_made_from_the_code_are_what_it_makes_now() -> None:
    """The offline model's parameter table (docs/running.md) is the code's, default by
    default, the README's first run prints what it shows, and the local model's tables are
    what its stored answers make when replayed: a changed parameter, funnel, parser or probe
    that the docs still show otherwise fails here (the data-realism tables, which take
    longer, are checked with the small run)."""
    check = subprocess.run(
        [sys.executable, str(SCRIPT), "--check", "--quick"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert check.returncode == 0, check.stdout + check.stderr
    assert "<!-- table offline-parameters -->" in (ROOT / "docs" / "running.md").read_text()


def test_the_local_models_tables_need_every_answer_stored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A replay the stored answers cannot serve (here: the explanations are gone, as when a
    prompt changes) stops with a line naming the command that asks the model again, never
    sending a call."""
    sys.path.insert(0, str(SCRIPT.parent))
    try:
        import llm_evidence
    finally:
        sys.path.remove(str(SCRIPT.parent))
    store = tmp_path / "calls.sqlite"
    with sqlite3.connect(llm_evidence.CALLS) as src, sqlite3.connect(store) as dst:
        src.backup(dst)
    with sqlite3.connect(store) as db:
        db.execute("DELETE FROM llm_calls WHERE role = 'explain'")
    monkeypatch.setattr(llm_evidence, "CALLS", store)
    llm_evidence.replayed.cache_clear()
    try:
        with pytest.raises(llm_evidence.NotStored, match=r"llm_evidence\.py make"):
            llm_evidence.replayed()
    finally:
        llm_evidence.replayed.cache_clear()
