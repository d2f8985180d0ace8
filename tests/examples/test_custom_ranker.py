"""The custom-ranker example (examples/custom_ranker.py): a role replaced from Python runs a
whole cell, and its answers are what the episodes stored."""

import importlib.util
from pathlib import Path

import pytest

from recmarket.config import EpisodeConfig, RunConfig
from recmarket.run.manifest import RunConflict
from recmarket.run.replay import all_calls
from recmarket.run.runner import run
from recmarket.run.store import RunStore
from tests.plugins import dist_info, recmarket

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "custom_ranker.py"


def load_example():
    spec = importlib.util.spec_from_file_location("custom_ranker", EXAMPLE)
    assert spec is not None and spec.loader is not None
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    return example


def test_a_ranker_of_ones_own_answers_every_shortlist_of_the_cell(tmp_path: Path) -> None:
    example = load_example()
    result = example.main(tmp_path / "run", requests=36)
    shortlists = [c for _, _, c in all_calls(result.store) if c.role == "shortlist"]
    assert len(shortlists) == len(result.store.episodes()) == 36 * 3  # three domains
    assert all(r["reason"].startswith("held up ") for c in shortlists for r in c.output["ranked"])
    result.store.close()


def test_a_directory_made_with_one_ranker_is_not_resumed_with_another(tmp_path: Path) -> None:
    example = load_example()
    out = tmp_path / "run"
    first = example.main(out, requests=12)
    stored = len(first.store.episodes())
    first.store.close()
    with pytest.raises(
        RunConflict, match=r"shortlist: custom_ranker\.RecordsOnlyRanker"
    ) as refused:
        run(RunConfig(condition="local-rep", episodes=EpisodeConfig(requests=12)), out)
    assert "recmarket's own backends" in str(refused.value)
    again = example.main(out, requests=12)  # the same ranker resumes (here: finds it done)
    assert len(again.store.episodes()) == stored
    again.store.close()


SPEC = """
name = "records-only"
description = "NoRep and LocalRep with the records-only ranker"
requests = 24

[base]
domains = ["Video_Games"]
roles = { shortlist = "records-only" }

[[cells]]
name = "no-rep"
settings = { condition = "no-rep" }

[[cells]]
name = "local-rep"
settings = { condition = "local-rep" }
"""


@pytest.mark.slow  # end to end: reproduce with worker processes
def test_a_ranker_named_in_settings_plays_in_reproduce_workers(tmp_path: Path) -> None:
    """Registered under recmarket.roles by a package, the ranker is chosen by name in a
    spec, and reproduce's worker processes build it from the settings alone."""
    site = dist_info(
        tmp_path / "site",
        "records-only",
        {"recmarket.roles": {"records-only": "custom_ranker:RECORDS_ONLY"}},
    )
    spec = tmp_path / "records-only.toml"
    spec.write_text(SPEC)
    flags = [str(spec), "--workers", "2", "--seeds", "1", "--out", str(tmp_path / "out")]
    recmarket("reproduce", *flags, paths=(site, EXAMPLE.parent), timeout=600)
    stores = sorted((tmp_path / "out").rglob("run.sqlite"))
    assert len(stores) == 2
    for found in stores:  # the calls the workers' episodes kept (the first of a domain)
        with RunStore.read(found.parent) as store:
            reasons = [
                r["reason"]
                for _, _, c in store.all_calls()
                if c.role == "shortlist"
                for r in c.output["ranked"]
            ]
        assert reasons and all(r.startswith("held up ") for r in reasons)
