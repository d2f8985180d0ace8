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


def rows_a_reference() -> int:
    """Every design for the user as unit; the uniform ones where a whole seed and domain is
    the unit (a domain's seeds are one stratum: every allocation is uniform there)."""
    uniform = sum(d.allocation == "uniform" for d in ppi_coverage.DESIGNS)
    return sum(
        len(ppi_coverage.DESIGNS) if e.study == "user" else uniform for e in ppi_coverage.ESTIMANDS
    )


def test_the_docs_table_is_what_the_stored_study_renders() -> None:
    rows, provenance = ppi_coverage.read_stored()
    doc = ppi_coverage.DOC.read_text(encoding="utf-8")
    assert ppi_coverage.in_doc(doc, ppi_coverage.render(rows, provenance)) == doc
    assert len(rows) == rows_a_reference() * 3  # three references
    assert {r["truth"] for r in rows} == {"realised", "expected"}
    assert {r["pilot"] for r in rows} >= {"uniform, 3 a stratum", "neyman, share", "active, share"}
    assert all(r["replicates"].split()[0] == "400" for r in rows)


def found(covered: int, vs_uniform: float = 1.0, given: int = 200) -> list[dict[str, float]]:
    return [
        {
            "given": float(i < given),
            "covered": float(i < covered),
            "ra_covered": 1.0,
            "pilot_covered": 1.0,
            "anytime_covered": 1.0,
            "ratio": 0.9,
            "vs_uniform": vs_uniform,
            "ra_vs_uniform": vs_uniform,
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


def population(reference: str = "near") -> "ppi_coverage.Population":
    allocation = ppi_coverage.Allocated({}, {}, {})
    return ppi_coverage.Population(
        reference,
        ppi_coverage.ESTIMANDS[0],
        "user",
        *(None,) * 4,  # type: ignore[arg-type]
        None,  # type: ignore[arg-type]
        {"realised": 0.5, "expected": 0.48},
        allocation,
    )


def test_the_targets_column_says_by_how_much_a_row_falls_short() -> None:
    first = ppi_coverage.DESIGNS[0]
    row = ppi_coverage.summary(population(), first, found(180))
    assert row["coverage PPI++"] == "90.0%"
    assert "coverage -2.0 pp off 92-98" in row["targets"]
    assert "ratio +0.050 over 0.85" in row["targets"]  # near, the user, a level
    neyman = next(d for d in ppi_coverage.DESIGNS if d.allocation == "neyman")
    row = ppi_coverage.summary(population("far"), neyman, found(190, vs_uniform=1.05))
    assert "1.050x uniform's width" in row["targets"]
    assert "width +0.200 over 0.85x uniform" in row["targets"]


def test_replicates_without_an_interval_count_apart_and_never_as_covered() -> None:
    expected = next(d for d in ppi_coverage.DESIGNS if d.truth == "expected")
    row = ppi_coverage.summary(population("far"), expected, found(150, given=160))
    assert row["replicates"] == "200 (40 no interval)"
    assert row["coverage PPI++"] == f"{100 * 150 / 160:.1f}%"
    assert row["value"] == "+0.4800"  # the expected truth


@pytest.mark.slow  # plays three references on two small studies (a few minutes)
def test_a_small_version_of_the_study_runs_every_reference_design_and_estimand(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert ppi_coverage.main(["--quick", "--out", str(tmp_path), "--workers", "2"]) == 0
    table = capsys.readouterr().out
    lines = [line for line in table.splitlines() if line.startswith("| ") and "---" not in line]
    assert len(lines) == 1 + rows_a_reference() * 3
    for reference in ("near", "far", "fake-llm"):
        assert sum(f"| {reference} |" in line for line in lines) == rows_a_reference()
    assert all(line.rstrip(" |").split("| ")[-1].strip() for line in lines[1:])
