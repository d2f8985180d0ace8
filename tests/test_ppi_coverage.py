"""The coverage study of the prediction-powered intervals (benchmarks/ppi_coverage.py):
its table in docs/llm-valid.md is the one its stored results render, and a small version
of the study runs end to end (every reference, estimand and target column)."""

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
try:
    import ppi_coverage
finally:
    sys.path.remove(str(ROOT / "benchmarks"))


def test_the_docs_table_is_what_the_stored_study_renders() -> None:
    rows, provenance = ppi_coverage.read_stored()
    doc = ppi_coverage.DOC.read_text(encoding="utf-8")
    assert ppi_coverage.in_doc(doc, ppi_coverage.render(rows, provenance)) == doc
    assert len(rows) == len(ppi_coverage.ESTIMANDS) * 3  # three references


def test_the_targets_column_says_by_how_much_a_row_falls_short() -> None:
    pop = ppi_coverage.Population(
        "near",
        ppi_coverage.ESTIMANDS[0],
        "user",
        None,
        None,
        None,
        None,
        0.5,  # type: ignore[arg-type]
    )
    found = [
        {
            "covered": float(i < 180),
            "pilot_covered": 1.0,
            "anytime_covered": 1.0,
            "ratio": 0.9,
            "correlation": 0.4,
            "correlation_one": 0.4,
            "correlation_drawn": 0.3,
            "allowed": 0.9165,
            "weight": 0.5,
            "pilot_n": 10,
            "units": 40,
        }
        for i in range(200)
    ]
    row = ppi_coverage.summary(pop, found)
    assert row["coverage 95% (fixed-n)"] == "90.0%"
    assert "coverage -2.0 pp off 92-98" in row["targets"]
    assert "ratio +0.050 over 0.85" in row["targets"]  # near, the user, a level


@pytest.mark.slow  # plays three references on two small studies (about a minute)
def test_a_small_version_of_the_study_runs_every_reference_and_estimand(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert ppi_coverage.main(["--quick", "--out", str(tmp_path), "--workers", "2"]) == 0
    table = capsys.readouterr().out
    lines = [line for line in table.splitlines() if line.startswith("| ") and "---" not in line]
    assert len(lines) == 1 + len(ppi_coverage.ESTIMANDS) * 3
    for reference in ("near", "far", "fake-llm"):
        assert sum(f"| {reference} |" in line for line in lines) == len(ppi_coverage.ESTIMANDS)
    assert all(line.rstrip(" |").split("| ")[-1].strip() for line in lines[1:])
