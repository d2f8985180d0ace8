"""The example learning-rule package (examples/greedy-learning-rule), installed the way pip
installs it: its run.toml plays adaptive platforms that try every arm once, in order, and
then keep to the best mean so far; the manifest names the package with its parameter."""

import json
from pathlib import Path

import pytest

from recmarket.run.store import RunStore
from tests.plugins import ran_example


@pytest.mark.slow  # end to end; keeps the default selection under 4 minutes
def test_the_example_run_tries_each_arm_once_then_plays_the_best_mean(tmp_path: Path) -> None:
    _, out = ran_example("greedy-learning-rule", tmp_path, requests=24)
    with RunStore.read(out) as store:
        rows = sorted(store.episodes(), key=lambda r: r["ord"])
        manifest = store.manifest()
    variants = json.loads(manifest["variants"])
    assert json.loads(manifest["config"])["market"]["learning"] == {
        "rule": "greedy",
        "params": {"untried": 2.0},
    }
    assert variants["learning rule greedy"]["distribution"] == "recmarket-greedy"
    chosen = [json.loads(r["lessons"]) for r in rows]
    for seat in chosen[0]:
        played = [c[seat][0] for c in chosen]
        tried = [arm for k, arm in enumerate(played) if arm not in played[:k]]
        assert tried == ["strict", "balanced", "exaggeration"], seat  # untried first, in order
