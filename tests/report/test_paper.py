"""The paper comparison: every number is measurable from the built-in experiments, and the
verdicts follow the stated rules. (What the numbers are is not asserted anywhere.)"""

from dataclasses import replace
from pathlib import Path

import pytest

from recmarket.analysis.bootstrap import Interval
from recmarket.analysis.market_measures import MARKET_MEASURES
from recmarket.experiments.spec import builtin_names, load_spec
from recmarket.report.chain_table import Chain
from recmarket.report.data import Cell, pooled_label
from recmarket.report.paper import (
    chain_verdict,
    interval_method,
    measured,
    metric_value,
    size,
    summary,
    verdict,
)
from recmarket.report.paper_arms import PaperNumber, arms_of, cell_with, paper_numbers, unpaired
from tests.fixtures import episode_row


def test_every_number_singles_out_built_in_cells_by_settings_and_names_a_metric() -> None:
    numbers = paper_numbers()
    assert len(numbers) >= 70
    sections = {n.section.split(",")[0] for n in numbers}
    assert {"4.2", "4.3", "4.4", "4.5", "A.2", "A.4", "A.5", "A.6", "A.8"} <= sections
    experiments = {name: dict(load_spec(name).configs()) for name in builtin_names()}
    for n in numbers:
        if n.experiment is None:
            continue
        members = {
            name: Cell(n.experiment, name, "", Path("."), [], cfg)
            for name, cfg in experiments[n.experiment].items()
        }
        for settings in (n.cell, n.base, *n.cells):
            if settings is not None:
                assert cell_with(members, settings) is not None, (n.what, settings)
        assert n.measure


def cell(rows: list[dict]) -> Cell:
    return Cell("e", "c", "", Path("."), rows, None)


def test_metrics_are_macro_means_or_pooled_shares_as_the_paper_states() -> None:
    rows = [
        episode_row("A", same_item_top1=True, top1_policy="exaggeration", ord=0),
        episode_row("A", same_item_top1=True, top1_policy="strict", ord=60),
        episode_row("B", same_item_top1=True, top1_policy="exaggeration", ord=0),
        episode_row("B", purchased_policy="strict", rep_label="high", target_copies=3),
        episode_row("B", purchased_policy="strict", rep_label="mixed"),
        episode_row("A", purchased_policy="strict", rep_label="high"),
    ]
    c = cell(rows)
    exaggeration = {"policy": "exaggeration"}
    assert metric_value(c, "same_item_win", exaggeration) == pytest.approx((50 + 100) / 2)
    high = {"policy": "strict", "label": "high"}
    assert metric_value(c, "label_share", high) == pytest.approx(100 * 2 / 3)
    # rounds 1-50 hold A's first and last rows (1 of 2) and all of B's (1 of 3)
    block = exaggeration | {"first": 1, "last": 50}
    assert metric_value(c, "top1_in_rounds", block) == pytest.approx((50 + 100 / 3) / 2)
    with pytest.raises(ValueError, match="unknown"):
        metric_value(c, "nonsense")
    with pytest.raises(ValueError, match="last comes before first"):
        metric_value(c, "top1_in_rounds", exaggeration | {"first": 5, "last": 2})


def test_a_paper_number_names_a_measure_shown_at_paper_with_its_parameters(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with pytest.raises(ValueError, match="labl"):
        number("level", 1.0, measure="label_share", params={"policy": "strict", "labl": "x"})
    with pytest.raises(ValueError, match="unknown market measure"):
        number("level", 1.0, measure="no_such_measure")
    funnel_only = replace(
        MARKET_MEASURES.get("pool_size"), name="pools", shown=frozenset({"funnel"})
    )
    monkeypatch.setitem(MARKET_MEASURES._items, "pools", funnel_only)
    with pytest.raises(ValueError, match="not shown at paper"):
        number("level", 1.0, measure="pools")
    assert number("level", 1.0, measure="target_top1").params == {}


def number(statistic: str, paper: float, **extra) -> PaperNumber:
    extra.setdefault("kind", "emergent")
    return PaperNumber(
        section="x", what="y", paper=paper, statistic=statistic, experiment="e", **extra
    )


def iv(estimate: float, low: float, high: float, **extra) -> Interval:
    return Interval(estimate, low, high, "paired-request x 3 seeds", 100, {}, 3, **extra)


def test_a_verdict_needs_an_interval_that_excludes_no_change() -> None:
    """An interval that excludes the paper's value says so first, whatever else holds: one
    that rules the paper's value out is never read as mere absence of evidence (issue 63)."""
    same, opposite, none = (
        "excludes the paper's value: same sign, other size",
        "excludes the paper's value: opposite sign",
        "excludes the paper's value: no detectable effect",
    )
    assert verdict(number("difference", -13.0), iv(-2.0, -3.0, -1.0)) == same
    assert verdict(number("difference", -13.0), iv(-11.0, -14.0, -8.0)) == "agrees in size"
    assert verdict(number("difference", -13.0), iv(4.0, 1.0, 7.0)) == opposite
    # the point estimate points the paper's way, the interval allows either sign, and it
    # rules the paper's -13 out: the headline row at --scale 0.1 read this way
    assert verdict(number("difference", -13.0), iv(-2.0, -4.0, 0.5)) == none
    # only an interval that holds both no change and the paper's value shows nothing
    assert verdict(number("difference", -3.0), iv(-1.0, -4.0, 0.5)) == "no detectable effect"
    assert verdict(number("difference", 5.0), iv(0.0, 0.0, 0.0)) == none
    assert verdict(number("ratio", 4.5), iv(1.2, 1.1, 1.3)) == same
    assert verdict(number("ratio", 0.5), iv(1.2, 1.05, 1.3)) == opposite
    assert verdict(number("ratio", 0.5), iv(0.9, 0.7, 1.1)) == none
    assert verdict(number("ratio", 0.8), iv(0.9, 0.7, 1.1)) == "no detectable effect"
    assert verdict(number("level", 20.0), iv(31.0, 30.0, 32.0)) == "level"
    assert verdict(number("level", 20.0), None) == "not run"
    assert verdict(PaperNumber(section="x", what="y", paper=1, statistic="level"), iv(3, 2, 4)) == (
        "no counterpart"
    )


def test_a_magnitude_without_a_sign_is_judged_by_its_size() -> None:
    small = number("magnitude", 1.1, tolerance=1.1)
    assert verdict(small, iv(-0.2, -0.9, 0.6)) == "agrees in size"  # within +-1.1 either way
    assert verdict(small, iv(-0.2, -1.5, 1.0)) == "inconclusive"
    assert verdict(small, iv(3.0, 2.0, 4.0)) == "larger"
    assert verdict(small, iv(-3.0, -4.0, -2.0)) == "larger"


def test_a_spread_is_at_most_the_papers_only_when_its_interval_is() -> None:
    assert verdict(number("spread", 4.6), iv(3.0, 1.0, 4.5)) == "agrees in size"
    assert verdict(number("spread", 4.6), iv(9.0, 6.0, 12.0)) == "wider"
    assert verdict(number("spread", 4.6), iv(4.0, 1.0, 8.0)) == "inconclusive"


def test_a_spread_is_judged_less_its_noise_bias_and_says_so() -> None:
    """Noisy arms spread apart even when their true values are equal: the draws' bias is
    taken off the interval before it is read against the paper's bound."""
    biased = iv(6.0, 5.0, 8.0, bias=3.5)
    assert verdict(number("spread", 4.6), iv(6.0, 5.0, 8.0)) == "wider"
    assert verdict(number("spread", 4.6), biased) == "agrees in size"
    assert size(number("spread", 4.6), biased) == "within the bound"
    assert size(number("spread", 4.6), iv(6.0, 5.0, 8.0)) == "beyond the bound"
    small = number("magnitude", 1.1, tolerance=1.1)
    assert size(small, iv(-2.0, -3.8, -0.4)) == "across the bound"
    assert size(small, iv(-0.2, -0.9, 0.6)) == "within the bound"
    assert "noise bias +3.50 taken off" in interval_method(number("spread", 4.6), biased)


def test_size_says_where_the_papers_value_lies_against_our_interval() -> None:
    assert size(number("difference", -13.0), iv(-2.0, -3.0, -1.0)) == "ours above"
    assert size(number("difference", -13.0), iv(-20.0, -25.0, -15.0)) == "ours below"
    assert size(number("difference", -13.0), iv(-11.0, -14.0, -8.0)) == "inside"
    nothing = iv(1.0, float("nan"), float("nan"))
    assert size(number("difference", -13.0), nothing) == ""
    assert verdict(number("difference", -13.0), nothing) == "no interval"


def test_where_the_paper_gives_an_interval_size_means_the_two_overlap() -> None:
    """R1's target purchase: the paper's +2.84 [0.17, 5.55] (line 341). Ours agrees in size
    where the intervals overlap, though the paper's point lies outside ours."""
    r1 = number("difference", 2.84, paper_interval=(0.17, 5.55), source="paper line 341")
    assert size(r1, iv(0.9, 0.1, 1.7)) == "intervals overlap"
    assert verdict(r1, iv(0.9, 0.1, 1.7)) == "agrees in size"
    assert size(number("difference", 2.84), iv(0.9, 0.1, 1.7)) == "ours below"
    apart = "excludes the paper's value: same sign, other size"
    assert verdict(r1, iv(0.1, 0.05, 0.15)) == apart  # below 0.17: apart
    assert size(r1, iv(7.0, 6.0, 8.0)) == "ours above"
    with pytest.raises(ValueError, match="name its source line"):
        number("difference", 2.84, paper_interval=(0.17, 5.55))
    with pytest.raises(ValueError, match="must hold its value"):
        number("difference", 2.84, paper_interval=(3.0, 5.55), source="line 341")


def test_the_papers_own_intervals_are_typed_with_their_source_lines() -> None:
    given = [n for n in paper_numbers() if n.paper_interval is not None]
    assert {n.what for n in given} >= {
        "Target Purchase, LocalRep minus NoRep, R1",
        "Target Purchase, LocalRep minus NoRep, R2",
    }
    paper = Path(__file__).resolve().parents[3] / "shared" / "paper"
    text = paper / "agentic-recommendation-markets.txt"
    if not text.is_file():
        pytest.skip("../shared/paper is absent: the source lines cannot be read")
    lines = text.read_text().splitlines()
    for n in given:
        line = int(n.source.split("line ")[1].split()[0])
        low, high = n.paper_interval
        assert f"[{low:.2f},{high:.2f}]" in lines[line - 1].replace(" ", ""), n.what


def test_a_purchase_agreement_needs_the_targets_top1_to_move_the_same_way() -> None:
    purchase = number("difference", 5.8, measure="target_purchase")
    flat = Chain({"target_top1": iv(0.1, -1.0, 1.2)}, None)
    up = Chain({"target_top1": iv(2.0, 0.4, 3.6)}, None)
    apart = "excludes the paper's value: same sign, other size"
    assert chain_verdict(purchase, "agrees in size", flat) == "chain broken"
    assert chain_verdict(purchase, "agrees in size", up) == "agrees in size"
    assert chain_verdict(purchase, "no detectable effect", flat) == "no detectable effect"
    assert chain_verdict(purchase, apart, flat) == apart  # an excluded value is said as it is
    assert chain_verdict(purchase, "agrees in size", None) == "agrees in size"  # not LocalRep
    top1 = number("difference", -37.6, measure="exaggeration_top1")
    assert chain_verdict(top1, "agrees in size", flat) == "agrees in size"


def test_the_method_names_the_bootstrap_or_the_t_interval_with_its_df() -> None:
    boot = interval_method(number("difference", 1.0), iv(1.0, 0.5, 1.5))
    assert boot == "percentile bootstrap (paired-request x 3 seeds), 100 draws"
    t = interval_method(number("difference", 1.0), iv(1.0, 0.5, 1.5, df=2))
    assert t == "t over 3 seeds, df 2 (paired-request x 3 seeds)"


def test_numbers_say_what_produces_each_contrast() -> None:
    numbers = paper_numbers()
    contrasts = [n for n in numbers if n.statistic != "level" and n.experiment]
    kinds = {n.kind for n in contrasts}
    assert kinds == {"protocol", "design", "emergent"}
    assert all(n.basis for n in contrasts if n.kind in ("protocol", "design"))
    with pytest.raises(ValueError, match="needs a kind"):
        PaperNumber(section="x", what="y", paper=1, statistic="difference", experiment="e")
    with pytest.raises(ValueError, match="names its assumption"):
        number("difference", 1.0, kind="design")
    with pytest.raises(ValueError, match="state it as a magnitude"):
        number("difference", 0.0)
    with pytest.raises(ValueError, match="bound"):
        number("magnitude", 1.0)


def test_the_summary_counts_verdicts_by_kind() -> None:
    rows = [
        {
            "kind": "emergent",
            "verdict": "excludes the paper's value: same sign, other size",
            "seeds": 3,
        },
        {"kind": "emergent", "verdict": "no detectable effect", "seeds": 3},
        {"kind": "emergent", "verdict": "excludes the paper's value: opposite sign", "seeds": 3},
        {"kind": "protocol", "verdict": "agrees in size", "seeds": 3},
        {"kind": "", "verdict": "level", "seeds": 3},
        {"kind": "design", "verdict": "not run", "seeds": ""},
    ]
    assert summary(rows) == (
        "paper comparison (3 seeds): emergent: 1 exclude the paper's value with its sign, "
        "1 exclude the paper's value with the other sign, 1 no detectable effect; protocol: "
        "1 agree in sign and size"
    )


def test_a_number_whose_cells_were_not_run_is_not_measured() -> None:
    n = number(
        "difference",
        8.0,
        cell={"market.n_platforms": 24},
        base={"market.n_platforms": 6},
        measure="target_present",
    )
    assert measured(n, {"e": {}}) is None


def test_below_full_scale_each_arm_takes_the_copy_its_partners_were_played_with() -> None:
    """A scaled run plays the scopes' NoRep twice (experiments/schedule.py): a contrast
    with Local-12 takes the copy beside its users, a level the copy with every seed, and
    the spread across a user's own and a shared memory pairs nothing."""

    def seeds(cfgs: list) -> tuple[int, ...]:
        return tuple(c.seed for c in cfgs)

    spec = load_spec("reputation-scope").replicated(3, 42)
    pooled: dict[str, list] = {}
    for name, cfg in spec.configs(0.1):
        pooled.setdefault(pooled_label(name), []).append(cfg)
    members = {
        label: Cell("reputation-scope", label, "", Path("."), [], cfgs[0], seeds(cfgs))
        for label, cfgs in pooled.items()
    }
    cells = {"e": members}
    local = {"condition": "local-rep", "reputation_scope": "local"}
    norep = {"condition": "no-rep"}
    contrast = number("difference", 1.0, cell=local, base=norep, measure="target_purchase")
    arms = arms_of(contrast, cells)
    assert arms is not None and [len(a.seeds) for a in arms] == [1, 1]
    assert arms[0].config.episodes == arms[1].config.episodes
    level = number("level", 1.0, cell=norep, measure="target_purchase")
    found = arms_of(level, cells)
    assert found is not None and len(found[0].seeds) == 3
    scopes = [{"condition": "local-rep", "reputation_scope": s} for s in ("shared", "local")]
    spread = number("spread", 1.0, cells=scopes, measure="target_purchase")
    assert arms_of(spread, cells) is None and unpaired(spread, cells)
    assert not unpaired(contrast, cells)
