"""What a pilot costs: its cells priced as ``estimate`` prices a run, for the episodes of
the units it plays only, and what each of a study's units costs the pilot backend (the
planner's price of a unit).

The bulk is the offline surrogate and costs nothing; the replays are offline too. A pilot
cell's calls are the whole cell's estimate times the share of its episodes that belong to
the chosen units, counted exactly from how requests are dealt to users
(``data.episodes.owners``).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from recmarket.config import RunConfig
from recmarket.data.episodes import owners
from recmarket.profiles import PROFILE_NAMES
from recmarket.run.estimate import CellCost, cell_cost, cell_estimate
from recmarket.run.pilot import PilotAsked, PilotPlan, plan_pilot
from recmarket.run.study_plan import plan
from recmarket.run.unit_choice import UnitChoice


def unit_episodes(unit: str, key: str, cfg: RunConfig) -> int:
    """Episodes one unit holds in one domain of a cell."""
    requests, per = cfg.episodes.requests, cfg.episodes.users_per_profile
    if unit == "request":
        return 1
    if unit == "domain":
        return requests
    dealt = owners(requests, per)
    if unit == "user":
        return sum(str(u) == key for u in dealt)
    return sum(PROFILE_NAMES[u // per] == key for u in dealt)


def pilot_episodes(choice: UnitChoice, cfg: RunConfig) -> int:
    """Episodes a pilot directory plays of a cell: its chosen units' in every domain."""
    return sum(unit_episodes(choice.unit, k, cfg) for keys in choice.chosen.values() for k in keys)


def scaled(cost: CellCost, episodes: int) -> CellCost:
    """A cell's estimate for ``episodes`` of its episodes."""
    share = episodes / cost.episodes if cost.episodes else 0.0
    return replace(
        cost,
        episodes=episodes,
        calls=cost.calls * share,
        prompt_tokens=cost.prompt_tokens * share,
        completion_tokens=cost.completion_tokens * share,
        cost=cost.cost * share,
        off_peak_cost=cost.off_peak_cost * share,
        options={k: None if v is None else v * share for k, v in cost.options.items()},
    )


def whole_cell(cfg: RunConfig, run_dir: str, cache_dir: Path) -> CellCost:
    """The pilot backend's price of playing every unit of a cell."""
    shape = cell_estimate(cfg, cache_dir) if cfg.uses_llm else None
    return cell_cost(shape, cfg.total_episodes, run_dir)


def pilot_plays(plan: PilotPlan, played: dict[str, RunConfig], out: Path) -> dict[str, int]:
    """Episodes each played pilot cell holds once finished, by its run directory (relative
    to ``out``); a directory several study cells share plays the most any of them asks."""
    episodes: dict[str, int] = {}
    for c in plan.cells:
        for run_dir, choice in c.played_dirs():  # the pilot's and its noise replays'
            cfg = played.get(str(out / run_dir))
            if cfg is not None:  # played: not the study's own cell, and some unit drawn
                episodes[run_dir] = max(episodes.get(run_dir, 0), pilot_episodes(choice, cfg))
    return episodes


def estimate_pilot(
    names: list[str],
    out: Path,
    cache_dir: Path,
    asked: PilotAsked,
    scale: float = 1.0,
    overrides: dict[str, Any] | None = None,
    seeds: int = 3,
) -> list[CellCost]:
    """Every pilot cell of a study priced for its chosen units; a pilot cell that several
    study cells share is priced once, for the union of their units, and listed under each."""
    cells, configs = plan(names, out, scale, overrides, seeds)
    recorded, _, played = plan_pilot(cells, configs, out, asked.path, asked.share, asked.seed)
    episodes = pilot_plays(recorded, played, out)
    priced = {
        run_dir: scaled(whole_cell(played[str(out / run_dir)], run_dir, cache_dir), n)
        for run_dir, n in episodes.items()
    }
    return [
        replace(priced[run_dir], experiment=c.experiment, cell=c.cell + said)
        for c in recorded.cells
        for run_dir, said in [
            (c.pilot_dir, ""),
            *((d, f" (noise replay {r})") for r, d in enumerate(c.noise_dirs, start=1)),
        ]
        if run_dir in priced
    ]
