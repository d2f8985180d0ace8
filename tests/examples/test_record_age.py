"""The example mechanism package (examples/record-age-reputation), installed the way pip
installs it: its run.toml weighs every shown record by its age in rounds, so even the newest
record weighs less than 1 (under a count-based decay the newest always weighs 1), and the
manifest names the package."""

from pathlib import Path

import pytest

from tests.plugins import exported_calls, ran_example, stored_variants


@pytest.mark.slow  # end to end: keeps the default selection under 4 minutes
def test_the_example_run_weighs_records_by_their_age_in_rounds(tmp_path: Path) -> None:
    paths, out = ran_example("record-age-reputation", tmp_path, requests=36)
    inputs = [c["input"] for c in exported_calls(out, paths) if c["role"] == "shortlist"]
    variants = stored_variants(out)
    assert variants["reputation mechanism record-age"]["distribution"] == "recmarket-record-age"
    histories = [h for i in inputs for h in (i["histories"] or {}).values() if h]
    assert histories, "no shortlist read a record"
    ages = [0.5 ** (a / 12.0) for a in range(1, 36)]  # half_life_rounds = 12 in run.toml
    for records in histories:
        weights = [r["weight"] for r in records]
        assert all(any(abs(w - a) < 1e-12 for a in ages) for w in weights), weights
        assert weights == sorted(weights) and weights[-1] < 1.0  # older weigh less
    assert {i["mechanism"] for i in inputs} == {"record-age"}
