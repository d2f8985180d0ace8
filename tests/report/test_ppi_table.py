"""The PPI section states the backends' correlation and says when it is too small to help."""

import pytest

from recmarket.report.ppi_table import correlation_said


@pytest.mark.parametrize(
    ("values", "near_zero"),
    [([0.02, -0.05, 0.08], True), ([0.5, 0.6, float("nan")], False)],
)
def test_the_correlation_is_stated_with_what_it_means(values: list[float], near_zero: bool) -> None:
    said = correlation_said([{"correlation": v} for v in values])
    finite = [v for v in values if v == v]
    assert f"over {len(finite)} estimands" in said
    assert ("near zero" in said) is near_zero


def test_no_correlation_is_said_where_none_was_measured() -> None:
    assert "No correlation" in correlation_said([{"correlation": float("nan")}])
