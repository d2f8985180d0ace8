import math

import pytest

from recmarket.market.access import analytic_access, simulate_access


def test_paper_defaults() -> None:
    pc, ua = analytic_access(6, 0.1, 0.8)
    assert round(pc, 3) == 0.200 and round(ua, 3) == 0.868


@pytest.mark.parametrize("n", [6, 12, 24])
@pytest.mark.parametrize("rho", [0.1, 1.0])
@pytest.mark.parametrize("p_hit", [0.5, 0.8])
def test_simulation_with_the_real_code_agrees_within_three_standard_errors(
    n: int, rho: float, p_hit: float
) -> None:
    result = simulate_access(n, rho, p_hit, draws=10_000, seed=42)
    assert result.within(3.0), result
    for sim, se in (
        (result.simulated_user_agent, result.se_user_agent),
        (result.simulated_platform_centric, result.se_platform_centric),
    ):
        assert math.isclose(se, math.sqrt(sim * (1 - sim) / 10_000), rel_tol=0.01, abs_tol=1e-9)


def test_user_agent_access_is_weakly_larger() -> None:
    for n in (1, 6, 24):
        for rho in (0.0, 0.3, 1.0):
            pc, ua = analytic_access(n, rho, 0.8)
            assert ua >= pc - 1e-12
