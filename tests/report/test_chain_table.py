"""The report's LocalRep contrasts: which pairs of cells are one, and the chain of each."""

from pathlib import Path

from recmarket.config import RunConfig
from recmarket.report.chain_table import chain_html, chain_rows, localrep_links, localrep_pairs
from recmarket.report.data import Cell
from tests.analysis.test_chain import arms


def cell(name: str, rows: list, **settings) -> Cell:
    return Cell("acc", name, "accountability", Path("."), rows, RunConfig.model_validate(settings))


def test_a_localrep_contrast_is_a_pair_that_differs_only_in_the_condition() -> None:
    base_rows, treated_rows = arms(moved_to_target=12)
    members = {
        "none": cell("none", base_rows, condition="no-rep"),
        "told": cell("told", base_rows, condition="rep-instruction"),
        "local": cell("local", treated_rows, condition="local-rep"),
        "shared": cell("shared", treated_rows, condition="local-rep", reputation_scope="shared"),
        "rho": cell("rho", treated_rows, condition="local-rep", market={"rho": 1.0}),
    }
    pairs = localrep_pairs({"acc": members})
    assert [(label, b.name, t.name) for label, b, t in pairs] == [
        ("acc: local (local-rep minus no-rep)", "none", "local"),
        ("acc: shared (local-rep, shared minus no-rep)", "none", "shared"),
    ]  # the rho=1.0 cell has no NoRep twin
    known: dict = {}
    found = localrep_links([members["none"], members["local"]], known)
    assert found is not None and found.links["target_top1"].estimate > 0 and len(known) == 1
    assert localrep_links([members["told"], members["local"]], known) is None  # not a base
    assert localrep_links([members["local"], members["none"]], known) is None  # wrong way
    assert localrep_links([members["none"], members["rho"]], known) is None  # not twins
    rows = chain_rows({"acc": members})
    assert [r["contrast"] for r in rows] == [label for label, _, _ in pairs]
    # the instruction alone holds the base's episodes: the records carry the whole change
    assert rows[0]["instruction_target_top1"] == 0.0
    assert rows[0]["records_target_top1"] == rows[0]["target_top1"] > 0
    # the instruction reads no records, so one cell told alone is every scope's twin
    assert rows[1]["instruction_target_top1"] == 0.0
    shown = chain_html(rows)
    assert 'id="accountability_chain"' in shown and "target Top-1" in shown
    assert rows[0]["chain"] in shown
