"""The pilot on the first screen: PPI verdicts beside the offline ones, a disagreement said,
and the estimands whose strata merged or that have no interval named."""

import math

from recmarket.report.pilot_summary import pilot_findings

NAN = math.nan


def row(estimand: str, kind: str, offline: tuple, ppi: tuple, strata: str, n: int) -> dict:
    return {
        "name": estimand,
        "kind": kind,
        "offline_low": offline[0],
        "offline_high": offline[1],
        "ppi": ppi[0],
        "ppi_low": ppi[1],
        "ppi_high": ppi[2],
        "strata": strata,
        "n_strata": n,
    }


def test_a_ppi_verdict_that_differs_from_the_offline_one_is_said() -> None:
    rows = [
        row("a - b: top1", "contrast", (-0.02, 0.01), (-0.030, -0.053, -0.006), "domain", 3),
        row("a - b: purchase", "contrast", (0.01, 0.05), (0.02, 0.005, 0.04), "seed x domain", 9),
    ]
    said = pilot_findings(rows)
    assert said[0].startswith("The pilot's prediction-powered verdict agrees with the offline")
    assert "on 1 of 2 contrasts" in said[0]
    assert (
        "disagree on a - b: top1 (offline: no detectable effect; PPI: negative, -0.030" in said[0]
    )
    assert "purchase" not in said[0]
    assert said[1].startswith("1 of 2 PPI estimands merged their seed x domain strata")


def test_agreement_alone_is_counted_and_estimands_without_intervals_are_named() -> None:
    rows = [
        row("b: top1", "level", (0.2, 0.3), (0.25, NAN, NAN), "", 0),
        row("a - b: top1", "contrast", (0.01, 0.03), (0.02, 0.01, 0.03), "pooled", 1),
    ]
    said = pilot_findings(rows)
    assert said[0].endswith("on 1 of 1 contrasts.")
    assert said[-1] == (
        "1 of 2 PPI estimands have no interval, too few pilot units even pooled: b: top1."
    )
    assert pilot_findings([]) == []
