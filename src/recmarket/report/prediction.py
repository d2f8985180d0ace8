"""Do offline agents calibrated to a model's pilot predict that model in other cells?

For each model run given, the same cell (its condition, market, domains and size) is
simulated offline with the calibrated parameters, ``replicates`` times with seeds of its
own, and each funnel and share metric of the model's run is set beside the offline
replicates: their mean (the prediction) and the 2.5th-97.5th percentiles (a 95%
prediction interval for a run of that size, so the sampling noise of a small model run
is inside it). "inside" says whether the model's value falls in that interval. Nothing is
fitted to these cells: they are out of sample, which is the point.

A model run's failed episodes stay in its denominators (as everywhere); the offline agents
never fail, so a model that fails often is predicted badly by construction, and the row
says how many of its episodes failed.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from recmarket.agents.rules.params import OfflineParams
from recmarket.analysis.funnel import funnel
from recmarket.catalogue.policies import PAPER_POLICIES
from recmarket.config import RunConfig
from recmarket.run.runner import run
from recmarket.run.store import RunStore

REPLICATES = 20
SEED_STRIDE = 7919  # replicate r of a cell runs at seed + (r + 1) * SEED_STRIDE
FUNNEL_METRICS = (  # measures (shown at the funnel) the check compares
    "target_present",
    "target_shortlisted",
    "target_top1",
    "any_purchase",
    "target_purchase",
    "no_purchase",
)
SHARE_METRICS = tuple(
    (f"{kind}_{policy}", f"{kind}_by_policy", policy)
    for kind in ("top1_share", "purchase_share")
    for policy in PAPER_POLICIES
)


def metrics_of(macro: dict[str, Any]) -> dict[str, float]:
    """The funnel rates and policy shares the check compares, from a macro funnel."""
    found = {name: float(macro[name]) for name in FUNNEL_METRICS}
    for name, table, policy in SHARE_METRICS:
        found[name] = float(macro[table][policy])
    return found


@dataclass(frozen=True)
class PredictionRow:
    """One model value beside its calibrated offline prediction and interval."""

    cell: str
    metric: str
    model: float
    predicted: float
    low: float
    high: float
    episodes: int
    failed: int

    @property
    def inside(self) -> bool:
        """Whether the model value lies inside the prediction interval."""
        return self.low - 1e-12 <= self.model <= self.high + 1e-12


def offline_twin(cfg: RunConfig, params: OfflineParams, replicate: int) -> RunConfig:
    """The model run's cell, answered offline with ``params``, at a replicate's seed."""
    seed = (cfg.seed + (replicate + 1) * SEED_STRIDE) % 2**63
    return cfg.model_copy(update={"llm": None, "agents": params, "seed": seed})


def check_predictions(
    params: OfflineParams,
    model_runs: Sequence[Path],
    replicates: int = REPLICATES,
    tick: Callable[[], None] | None = None,
) -> list[PredictionRow]:
    """Every metric of every model run beside its calibrated offline prediction."""
    rows = []
    for run_dir in model_runs:
        with RunStore.read(run_dir) as store:
            cfg, episodes = store.config(), store.episodes()
        observed = metrics_of(funnel(episodes, cfg)["macro"])
        simulated: dict[str, list[float]] = {name: [] for name in observed}
        with tempfile.TemporaryDirectory(prefix="recmarket-check-") as scratch:
            for r in range(replicates):
                result = run(offline_twin(cfg, params, r), Path(scratch) / str(r))
                for name, value in metrics_of(
                    funnel(result.store.episodes(), cfg)["macro"]
                ).items():
                    simulated[name].append(value)
                result.store.close()
                if tick is not None:
                    tick()
        failed = sum(1 for e in episodes if e["failed_role"])
        for name, value in observed.items():
            values = np.asarray(simulated[name])
            low, high = np.percentile(values, [2.5, 97.5])
            rows.append(
                PredictionRow(
                    f"{run_dir.name} ({cfg.condition})",
                    name,
                    value,
                    float(values.mean()),
                    float(low),
                    float(high),
                    len(episodes),
                    failed,
                )
            )
    return rows
