"""The example mechanism package (examples/half-life-reputation), installed the way pip
installs it: its run.toml plays with the mechanism at its parameter, whose records weigh as
the half-life says, and the manifest names the package."""

from pathlib import Path

import pytest

from tests.plugins import exported_calls, ran_example, stored_variants


@pytest.mark.slow  # end to end: keeps the default selection under 4 minutes
def test_the_example_run_weighs_records_by_their_half_life(tmp_path: Path) -> None:
    paths, out = ran_example("half-life-reputation", tmp_path, requests=36)
    inputs = [c["input"] for c in exported_calls(out, paths) if c["role"] == "shortlist"]
    variants = stored_variants(out)
    assert variants["reputation mechanism half-life"]["distribution"] == "recmarket-half-life"
    weights = sorted(
        {
            r["weight"]
            for i in inputs
            for records in (i["histories"] or {}).values()
            for r in records
        }
    )
    assert weights[-1] == 1.0 and 0.5 ** (1 / 2) in weights  # half_life = 2 in run.toml
    assert {i["mechanism"] for i in inputs} == {"half-life"}
