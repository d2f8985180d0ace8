"""The example plugin (examples/hedged-policy): a fourth presentation policy, installed the
way pip installs it (its module importable, its declared entry point in a dist-info), runs
with the offline platforms and with an LLM on loopback, and is reported as a family."""

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from recmarket.agents.rules import lexicon
from recmarket.run.store import RunStore
from recmarket.testing.fake_llm import FakeLLM
from tests.plugins import declared_entry_points, dist_info, recmarket

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "hedged-policy"
POLICIES = "strict,balanced,exaggeration,hedged,strict,balanced"
KEY_ENV = "RECMARKET_TEST_KEY"


@pytest.fixture
def plugin_site(tmp_path: Path) -> Path:
    """Where a process finds the example package declared, as pip installs it."""
    return dist_info(
        tmp_path / "site", "hedged-policy", declared_entry_points(EXAMPLE / "pyproject.toml")
    )


def run(site: Path, out: Path, *flags: str) -> dict:
    args = ["run", "--policies", POLICIES, "--requests", "24", "--json", "--out", str(out)]
    return json.loads(recmarket(*args, *flags, paths=(site, EXAMPLE / "src")))


def explanations(out: Path, platform: str) -> list[dict]:
    """The stored explain calls of one platform (those of the episodes whose calls the run
    kept: reading the others would play them again, with the plugin loaded)."""
    with RunStore.read(out) as store:
        calls = [c for _, _, c in store.all_calls() if c.role == "explain"]
    found = [{"input": c.input, "output": c.output} for c in calls]
    return [e for e in found if e["input"]["platform_id"] == platform]


@pytest.mark.slow  # end to end: an installed example plugin, a run and its report
def test_the_example_policy_runs_offline_and_is_reported(plugin_site, tmp_path: Path) -> None:
    report = run(plugin_site, tmp_path / "offline")
    with RunStore.read(tmp_path / "offline") as store:
        rows = store.episodes()
    # The hedged platform's proposals reach the shortlist, and the report counts the
    # policies that took Top-1 as the rows record them (whichever they were).
    assert any("P4" in (r["shown_platforms"] or "").split(",") for r in rows)
    top1 = {r["top1_policy"] for r in rows} - {None}
    assert set(report["macro"]["top1_share_by_policy"]) == top1
    assert top1 <= {"strict", "balanced", "exaggeration", "hedged"}
    hedged = explanations(tmp_path / "offline", "P4")
    assert hedged and {e["input"]["policy"] for e in hedged} == {"hedged"}
    # Worded as the package says: candid, naming what the evidence does not show.
    assert all(lexicon.count_disclosures(e["output"]["text"]) >= 1 for e in hedged)


@pytest.mark.slow  # end to end: keeps the default selection under 4 minutes
def test_the_example_policy_reaches_an_llm_through_its_prompt_card(
    plugin_site, tmp_path, monkeypatch
) -> None:
    monkeypatch.setenv(KEY_ENV, "sk-test")
    with FakeLLM(api_key="sk-test") as server:
        flags = ["--backend", "llm", "--llm-model", "fake-model", "--llm-base-url"]
        run(plugin_site, tmp_path / "llm", *flags, server.base_url, "--llm-api-key-env", KEY_ENV)
    with sqlite3.connect(tmp_path / "llm" / "run.sqlite") as db:
        prompts = [m for (m,) in db.execute("SELECT messages FROM llm_calls")]
    sent = [p for p in prompts if "hedged_understatement" in p]
    assert sent and all("hedged, understated style" in p for p in sent)


def test_without_the_package_the_policy_is_an_unknown_name(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "recmarket", "run", "--policies", POLICIES, "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert "unknown policy name 'hedged'; known: strict, balanced, exaggeration" in done.stderr
