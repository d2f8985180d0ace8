"""The analytic access benchmark of Appendix A.2, and its simulation with the real code.

F is target presence produced by forced inclusion alone. With M = 1 + Binomial(N-1, rho)
catalogs carrying the target:

    Pr(F_PC) = p_hit (1 + (N-1) rho) / N
    Pr(F_UA) = 1 - (1 - p_hit) (1 - rho p_hit)^(N-1)

The simulation builds catalogs with ``assign_catalogs`` over a universe in which every item
is the target of one episode (so every item is protected from the cap), and applies the
per-episode draws and ``forced_inclusion`` exactly as retrieval does. Episodes are
independent because copy events are independent across items.
"""

from __future__ import annotations

import math

import numpy as np
from pydantic import BaseModel

from recmarket.market.catalogs import assign_catalogs
from recmarket.market.retrieval import EpisodeDraws, forced_inclusion

ACCESS_DOMAIN = "access-check"


class AccessCheck(BaseModel):
    """Appendix A.2's check of the target's availability: the analytic chances under
    platform-centric and user-agent access beside the simulated rates, with their
    standard errors."""

    n_platforms: int
    rho: float
    p_hit: float
    draws: int
    analytic_platform_centric: float
    analytic_user_agent: float
    simulated_platform_centric: float
    simulated_user_agent: float
    se_platform_centric: float
    se_user_agent: float

    def within(self, k: float = 3.0) -> bool:
        """Do both simulated rates lie within k analytic standard errors of the formulas?"""

        def ok(sim: float, exact: float) -> bool:
            se = math.sqrt(exact * (1 - exact) / self.draws)
            return abs(sim - exact) <= k * se + 1e-9

        return ok(self.simulated_platform_centric, self.analytic_platform_centric) and ok(
            self.simulated_user_agent, self.analytic_user_agent
        )


def analytic_access(n_platforms: int, rho: float, p_hit: float) -> tuple[float, float]:
    """(platform-centric, user-agent) chances that the target is available (Appendix A.2):
    one uniformly chosen platform carries it, or any of the N does."""
    pc = p_hit * (1 + (n_platforms - 1) * rho) / n_platforms
    ua = 1 - (1 - p_hit) * (1 - rho * p_hit) ** (n_platforms - 1)
    return pc, ua


def simulate_access(
    n_platforms: int, rho: float, p_hit: float, draws: int, seed: int = 42
) -> AccessCheck:
    """The availability rates over ``draws`` simulated catalog assignments, beside the
    analytic ones."""
    catalogs = assign_catalogs(
        draws,
        np.arange(draws),
        n_platforms=n_platforms,
        rho=rho,
        cap=draws,
        seed=seed,
        domain=ACCESS_DOMAIN,
    )
    pc = np.zeros(draws, dtype=bool)
    ua = np.zeros(draws, dtype=bool)
    for episode in range(draws):
        d = EpisodeDraws.draw(seed, ACCESS_DOMAIN, episode, n_platforms, top_l=1)
        forced = forced_inclusion(catalogs.carriers(episode), d.inclusion, p_hit)
        ua[episode] = forced.any()
        pc[episode] = forced[d.entry]
    exact_pc, exact_ua = analytic_access(n_platforms, rho, p_hit)

    def se(x: np.ndarray) -> float:
        return float(x.std(ddof=1) / math.sqrt(len(x))) if len(x) > 1 else 0.0

    return AccessCheck(
        n_platforms=n_platforms,
        rho=rho,
        p_hit=p_hit,
        draws=draws,
        analytic_platform_centric=exact_pc,
        analytic_user_agent=exact_ua,
        simulated_platform_centric=float(pc.mean()),
        simulated_user_agent=float(ua.mean()),
        se_platform_centric=se(pc),
        se_user_agent=se(ua),
    )
