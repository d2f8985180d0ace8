"""The example attack package (examples/on-off-attack), installed the way pip installs it:
its run.toml plays seat P4 honest, then exaggerating, in turns of 12 rounds switched at
period ends, and the manifest names the package."""

import json
from pathlib import Path

import pytest

from recmarket.run.store import RunStore
from tests.plugins import ran_example, stored_variants


@pytest.mark.slow  # end to end; keeps the default selection under 4 minutes
def test_the_example_seat_turns_between_its_two_presentations_on_schedule(
    tmp_path: Path,
) -> None:
    _, out = ran_example("on-off-attack", tmp_path, requests=48)
    with RunStore.read(out) as store:
        rows = sorted(store.episodes(), key=lambda r: r["ord"])
    variants = stored_variants(out)
    assert variants["attack on-off"]["distribution"] == "recmarket-on-off"
    played = [json.loads(r["lessons"])["P4"][0] for r in rows]
    # run.toml: 12 rounds of strict, 12 of exaggeration, and again
    assert played == (["strict"] * 12 + ["exaggeration"] * 12) * 2
