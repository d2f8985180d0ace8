"""The report's first screen: what ran, and cautions derived from the run's own settings and
measured records, never fixed text."""

from pathlib import Path

from recmarket.agents.llm.config import LLMConfig, ModelConfig
from recmarket.config import RunConfig
from recmarket.report.data import Cell, Made
from recmarket.report.paper import NOT_PAIRED
from recmarket.report.summary import backend_name, cautions, data_name, headlines, run_summary

MADE = Made("0123456789abcdef", True, "2026-12-02T10:00:00+00:00", "0.1.0")


def cell(
    condition: str, *, rounds: int, scale: float | None, labelled: int = 0, cut: str = ""
) -> Cell:
    """A one-domain cell of 12 users, each playing ``rounds`` episodes (of ``rounds`` /
    ``scale`` at full scale); the first ``labelled`` episodes of each user leave a record for
    P1."""
    rows = [
        {
            "replicate": 42,
            "domain": "D",
            "ord": r * 12 + u,
            "sim_user": u,
            "condition": condition,
            "rep_label": "low" if r < labelled else None,
            "rep_platform": "P1" if r < labelled else None,
            "failed_role": None,
        }
        for u in range(12)
        for r in range(rounds)
    ]
    config = RunConfig(condition=condition)
    full = rounds / scale if scale else None
    return Cell(
        "e", condition, "accountability", Path("x"), rows, config, (42,), scale, (MADE,), full, cut
    )


def test_a_small_run_says_how_few_rounds_its_users_played() -> None:
    cut = "cut to 0.05 of each cell's episodes at every seed"
    small = [cell("no-rep", rounds=5, scale=0.05), cell("local-rep", rounds=5, scale=0.05, cut=cut)]
    said = " ".join(cautions(small, []))
    assert "At --scale 0.05, a user with their own memory (LocalRep) plays about 5 rounds" in said
    assert "of the 100 it plays at full scale" in said
    assert f"the scale {cut} (e)" in said
    longer = [*small, cell("local-rep", rounds=10, scale=0.05)]
    assert "plays about 5 to 10 rounds a cell of the 100/200 it plays at full scale (2 such" in (
        " ".join(cautions(longer, []))
    )
    assert "no history passed the window W = 10 records" in said
    full = [cell("local-rep", rounds=100, scale=1.0, labelled=30)]
    said = " ".join(cautions(full, []))
    assert "--scale" not in said
    # P1 holds 30 records in each user's memory, the other five platforms none
    assert "over 1 reputation cell: median 0, most 30; 17% of histories passed" in said


def test_the_power_caution_counts_the_flat_contrasts_at_this_scale() -> None:
    rows = [
        {"kind": "emergent", "ours": "1", "verdict": "no detectable effect"},
        {"kind": "emergent", "ours": "2", "verdict": "agrees in sign"},
        {"kind": "", "ours": "3", "verdict": "level"},
    ]
    said = cautions([cell("no-rep", rounds=2, scale=0.25)], rows)
    assert any("1 of the 2 measured contrasts show no detectable effect" in s for s in said)
    assert any("about 2.0 times as wide" in s for s in said)
    assert not any(
        "times as wide" in s for s in cautions([cell("no-rep", rounds=2, scale=1.0)], rows)
    )


def test_numbers_a_scaled_run_cut_apart_are_counted_and_not_measured() -> None:
    rows = [
        {"kind": "emergent", "ours": "", "verdict": NOT_PAIRED},
        {"kind": "emergent", "ours": "2", "verdict": "agrees in sign"},
    ]
    said = cautions([cell("no-rep", rounds=2, scale=0.1)], rows)
    assert any(s.startswith("1 of the paper's numbers compare a user's own") for s in said)
    assert not any("own memory with one a domain" in s for s in cautions([], rows[1:]))


def test_what_ran_names_data_backend_and_provenance() -> None:
    summary = run_summary({"e": {"a": cell("no-rep", rounds=1, scale=None)}}, [], 1)
    ran = dict(summary.ran)
    assert ran["scale"] == "not recorded (a plan from an older version)"
    assert ran["commit"].startswith("0123456789 (with uncommitted changes)")
    assert ran["seeds"] == "1 (42)" and ran["date"] == "2026-12-02"
    assert "12 episodes" in ran["experiments"]
    assert data_name(RunConfig()) == "the bundled demo domains (synthetic)"
    assert "3,000 reviewers" in data_name(RunConfig(data="demo:3000"))
    assert backend_name(RunConfig()).startswith("offline agents")
    llm = LLMConfig(
        models={"small": ModelConfig(name="smollm2", base_url="http://127.0.0.1:1/v1")},
        roles={"explain": "small"},
    )
    said = backend_name(RunConfig(llm=llm))
    assert said.startswith("LLM model smollm2 (explain)") and "offline rules for query" in said
    html = summary.html()
    assert html.startswith('<section id="summary">') and "What this run cannot show" in html


def test_what_it_found_says_the_three_headlines_with_numbers_and_intervals() -> None:
    def row(what: str, ours: str, low: str, high: str, paper: str, **more: str) -> dict:
        return {"what": what, "ours": ours, "low": low, "high": high, "paper": paper} | more

    comparison = [
        row("Target Present, Platform-Centric (roughly one fifth)", "19.5", "18", "21", "20"),
        row("Target Present, user agent NoRep (nearly nine tenths)", "88.25", "87", "89.5", "90"),
        row("Exaggeration Top-1 share, NoRep, equal market (73-78%)", "60", "58", "62", "75.5"),
        row("Exaggeration Top-1 share, LocalRep, equal market (36-41%)", "50", "48", "52", "38.5"),
        row(
            "Exaggeration Top-1 share, LocalRep minus NoRep, equal market",
            "-10",
            "-12",
            "-8",
            "-37.62",
            verdict="excludes the paper's value: same sign, other size",
        ),
        row(
            "Target Purchase, LocalRep minus NoRep, equal market",
            "0.4",
            "-0.6",
            "1.5",
            "5.8",
            verdict="excludes the paper's value: no detectable effect",
            chain="breaks at target Top-1: no detectable move, +0.10 [-1.00, +1.20]",
        ),
    ]
    said = headlines(comparison)
    assert said == [
        "Access: the target reached the pool in 88.2% [87.0, 89.5] of NoRep episodes against "
        "19.5% [18.0, 21.0] under Platform-Centric (the paper: 90% and 20%).",
        "Attention: Exaggeration's Top-1 share in the equal market was 60.0% [58.0, 62.0] under "
        "NoRep and 50.0% [48.0, 52.0] under LocalRep, a change of -10.0 [-12.0, -8.0] points "
        "(the paper: -37.62; excludes the paper's value: same sign, other size).",
        "Accountability: LocalRep moved target purchase in the equal market by +0.4 [-0.6, +1.5] "
        "points (the paper: +5.8; excludes the paper's value: no detectable effect); its chain "
        "breaks at target Top-1: no detectable move, +0.10 [-1.00, +1.20].",
    ]
    assert headlines(comparison[2:]) == said[1:]  # only what was measured
    assert headlines([{**r, "ours": ""} for r in comparison]) == []
