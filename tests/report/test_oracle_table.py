"""The oracle beside each mechanism with otherwise the same settings, paired."""

from recmarket.report.oracle_table import oracle_html, oracle_pairs, oracle_rows, verdict
from tests.analysis.test_chain import arms
from tests.report.test_chain_table import cell


def test_the_oracle_is_a_ceiling_only_where_a_paired_interval_says_so() -> None:
    fewer, more = arms(moved_to_target=0), arms(moved_to_target=18)
    oracle = {"reputation": {"mechanism": "oracle"}}
    members = {
        "window": cell("window", fewer[1], condition="local-rep"),
        "beta": cell(
            "beta", fewer[1], condition="local-rep", market={"reputation": {"mechanism": "beta"}}
        ),
        "oracle": cell("oracle", more[1], condition="local-rep", market=oracle),
        "oracle-rho": cell(
            "oracle-rho", more[1], condition="local-rep", market={**oracle, "rho": 1.0}
        ),
        "none": cell("none", fewer[0], condition="no-rep"),
    }
    pairs = oracle_pairs({"frontier": members})
    assert [(o.name, m.name) for _, m, o in pairs] == [("oracle", "window"), ("oracle", "beta")]
    rows = oracle_rows({"frontier": members}, draws=2_000)
    assert [r["mechanism"] for r in rows] == ["window", "beta"]
    assert {r["verdict"] for r in rows} == {"the oracle serves users better"}
    assert rows[0]["target_purchased"].startswith("+18.75 [")
    assert "2 the oracle serves users better" in oracle_html(rows)
    assert verdict(-1.8, -0.2) == "the oracle serves users worse"
    assert verdict(-1.0, 0.5) == "no detectable difference"
