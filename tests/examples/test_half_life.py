"""The example mechanism package (examples/half-life-reputation), installed the way pip
installs it: its run.toml plays with the mechanism at its parameter, whose records weigh as
the half-life says, and the manifest names the package."""

import json
from pathlib import Path

from recmarket.run.store import RunStore
from tests.plugins import EXAMPLES, exported_calls, installed_example, recmarket


def test_the_example_run_weighs_records_by_their_half_life(tmp_path: Path) -> None:
    paths = installed_example("half-life-reputation", tmp_path / "site")
    out = tmp_path / "run"
    config = EXAMPLES / "half-life-reputation" / "run.toml"
    recmarket("run", "--config", str(config), "--requests", "36", "--out", str(out), paths=paths)
    inputs = [c["input"] for c in exported_calls(out, paths) if c["role"] == "shortlist"]
    with RunStore.read(out) as store:
        variants = json.loads(store.manifest()["variants"])
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
