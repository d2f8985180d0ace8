"""The custom-ranker example (examples/custom_ranker.py): a role replaced from Python runs a
whole cell, and its answers are what the episodes stored."""

import importlib.util
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "custom_ranker.py"


def test_a_ranker_of_ones_own_answers_every_shortlist_of_the_cell(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("custom_ranker", EXAMPLE)
    assert spec is not None and spec.loader is not None
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    result = example.main(tmp_path / "run", requests=36)
    shortlists = [c for _, _, c in result.store.all_calls() if c.role == "shortlist"]
    assert len(shortlists) == len(result.store.episodes()) == 36 * 3  # three domains
    assert all(r["reason"].startswith("held up ") for c in shortlists for r in c.output["ranked"])
    result.store.close()
