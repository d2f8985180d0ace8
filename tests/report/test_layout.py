"""Where the report puts things: every figure in one section of the paper's order, every
paper number linked to a figure or table the report draws, headings that are sentences,
and tick labels that never overlap."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pytest

from recmarket.report.build import heading
from recmarket.report.figures import FIGURES
from recmarket.report.layout import CITED, PAPER_SECTIONS, caption, cited_stem, section_of
from recmarket.report.paper_arms import paper_numbers
from recmarket.report.ticks import display_names, overlaps, untangle

STEMS = [stem for figures in FIGURES.values() for stem, _ in figures]


def test_every_figure_sits_in_exactly_one_section() -> None:
    placed = [stem for section in PAPER_SECTIONS for stem in section.stems]
    assert len(placed) == len(set(placed))
    assert set(STEMS) <= set(placed)
    # the A.2 table, the accountability chain and the oracle pairs: tables, not figures
    assert set(placed) - set(STEMS) == {"access_check", "accountability_chain", "oracle_contrasts"}
    assert section_of("fig08_purchase_by_composition") == "accountability"
    with pytest.raises(KeyError, match="no report section"):
        section_of("fig99_unplaced")


def test_every_paper_number_cites_something_the_report_draws() -> None:
    drawn = set(STEMS) | {"access_check"}
    assert set(CITED.values()) <= drawn
    for number in paper_numbers():
        assert cited_stem(number.section) in drawn, number.section
    assert cited_stem("4.5, Fig. 8") == "fig08_purchase_by_composition"
    assert cited_stem("A.4, Table 2") == "fig09_robustness"
    assert cited_stem("5.2") is None


def test_a_caption_gives_the_paper_value_and_our_verdict_with_a_link() -> None:
    rows = [
        {
            "section": "4.2, Fig. 3",
            "what": "<b>x</b>",
            "paper": "4.5",
            "ours": "3.1",
            "low": "2.0",
            "high": "4.2",
            "verdict": "agrees in sign",
        },
        {
            "section": "4.3, Fig. 4",
            "what": "y",
            "paper": "1",
            "ours": "",
            "low": "",
            "high": "",
            "verdict": "not run",
        },
    ]
    said = caption("fig03_funnel", rows)
    assert 'href="#paper-1"' in said and "&lt;b&gt;x&lt;/b&gt;" in said
    assert "paper 4.5, ours 3.1 [2.0, 4.2]" in said and "agrees in sign" in said
    assert caption("fig04_market_expansion", rows) == ""  # not run: nothing to say


def test_every_heading_is_a_whole_sentence() -> None:
    for figures in FIGURES.values():
        for stem, draw in figures:
            said = heading(draw)
            assert said[:1].isupper() and said.endswith("."), (stem, said)
            assert said.count("(") == said.count(")"), (stem, said)


def test_display_names_drop_what_every_cell_shares() -> None:
    names = ["composition=all-strict/seed=42", "composition=all-balanced/seed=42"]
    assert display_names(names) == ["all-strict", "all-balanced"]
    seeds = ["equal/seed=42", "equal/seed=43", "equal/seed=44"]
    assert display_names(seeds) == ["seed=42", "seed=43", "seed=44"]  # three labels, not one
    collide = ["x=low/y=2", "z=low/y=2"]
    assert display_names(collide) == collide  # "low" and "low" would not differ: kept whole
    assert display_names(["only"]) == ["only"]


def test_overlapping_tick_labels_are_found_and_untangled() -> None:
    fig, ax = plt.subplots(figsize=(3, 2))
    labels = [f"composition=all-{k}-exaggeration" for k in range(6)]
    ax.bar(range(6), range(6))
    ax.set_xticks(range(6), labels)
    assert overlaps(fig), "six long labels in three inches must collide"
    untangle(fig)
    assert overlaps(fig) == []
    plt.close(fig)
