"""The episode explorer's data: the first episodes of every domain of every run, each laid
out as the market played it (``recmarket.analysis.story``), with the experiments and cells
that use its run."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

from recmarket.analysis.story import episode_story
from recmarket.catalogue.policies import POLICIES
from recmarket.report.data import Cell
from recmarket.run.replay import calls_of
from recmarket.run.store import RunStore

EXPLORER_PER_DOMAIN = 3  # episodes per domain and run whose role calls the page embeds


def explorer(cells: dict[str, dict[str, Cell]]) -> list[dict[str, Any]]:
    """The first episodes of every domain of every run, each with all of its role calls
    and the experiments and cells that use its run."""
    by_run: dict[Path, dict[str, Any]] = {}
    for experiment, members in cells.items():
        for name, cell in members.items():
            entry = by_run.setdefault(cell.run_dir, {"cell": cell, "uses": []})
            entry["uses"].append({"experiment": experiment, "cell": name})
    episodes = []
    for run_dir, entry in by_run.items():
        chosen: dict[str, list[Any]] = defaultdict(list)
        for row in entry["cell"].rows:
            if len(chosen[row["domain"]]) < EXPLORER_PER_DOMAIN:
                chosen[row["domain"]].append(row)
        with RunStore.read(run_dir) as store:
            for domain, rows in chosen.items():
                calls = calls_of(store, domain, [row["ord"] for row in rows])
                episodes += [_explored(row, calls[row["ord"]], entry["uses"]) for row in rows]
    return episodes


def _explored(row: Any, calls: list[Any], uses: list[dict[str, str]]) -> dict[str, Any]:
    story = episode_story(row, calls)
    return {
        "episode_id": row["episode_id"],
        "domain": row["domain"],
        "outcome": story["outcome"],
        "title": story["request"],
        "uses": uses,
        "story": story,
        "calls": [{"role": c.role, "input": c.input, "output": c.output} for c in calls],
    }


def policy_colours() -> dict[str, str]:
    """Each policy's colour, the one every figure draws it in."""
    return {p.name: p.colour for p in POLICIES}
