"""The episode explorer's data: the first episodes of every domain of every run, each laid
out as the market played it (``recmarket.analysis.story``), with the experiments and cells
that use its run.

A page a researcher can send stays small at any scale: episodes are taken a layer at a time
(the first episode of every run's every domain, then the second, ...) until their
compressed size reaches ``EXPLORER_BYTES``, and the page embeds them gzipped. Every other
episode opens with ``recmarket show``.
"""

from __future__ import annotations

import gzip
import json
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from recmarket.analysis.story import episode_story
from recmarket.catalogue.policies import POLICIES
from recmarket.report.data import Cell
from recmarket.run.replay import calls_of
from recmarket.run.store import RunStore

EXPLORER_PER_DOMAIN = 3  # episodes per domain and run whose role calls the page may embed
# Compressed bytes of embedded episodes: with the figures (about 1.5 MB) and base64's third,
# the page stays under 5 MB however many runs a report reads.
EXPLORER_BYTES = 2_000_000


@dataclass(frozen=True)
class Explored:
    """The episodes a page embeds, and how many it could have."""

    episodes: list[dict[str, Any]]
    offered: int

    def note(self) -> str:
        """What the explorer holds, for the page to say."""
        held = f"{len(self.episodes)} episodes"
        if len(self.episodes) < self.offered:
            held += (
                f" of the {self.offered} first ones (up to {EXPLORER_PER_DOMAIN} of each domain "
                "in every run), taken a layer at a time across runs to keep the page small"
            )
        else:
            held += f" (the first {EXPLORER_PER_DOMAIN} of each domain in every run)"
        return (
            f"The explorer embeds {held}, with their role calls; `recmarket show RUN_DIR "
            "--episode ID` opens any episode."
        )


def bounded(layers: list[list[dict[str, Any]]], budget: int = EXPLORER_BYTES) -> Explored:
    """Whole layers of episodes, then the start of the next, while the sum of their own
    compressed sizes stays within ``budget`` (compressed together they take less)."""
    kept: list[dict[str, Any]] = []
    spent = 0
    for episode in (e for layer in layers for e in layer):
        size = len(gzip.compress(json.dumps(episode).encode(), compresslevel=6))
        if spent + size > budget:
            break
        kept.append(episode)
        spent += size
    return Explored(kept, sum(len(layer) for layer in layers))


def explorer(cells: dict[str, dict[str, Cell]]) -> Explored:
    """The first episodes of every domain of every run, each with all of its role calls
    and the experiments and cells that use its run, as many as the page's budget holds."""
    by_run: dict[Path, dict[str, Any]] = {}
    for experiment, members in cells.items():
        for name, cell in members.items():
            entry = by_run.setdefault(cell.run_dir, {"cell": cell, "uses": []})
            entry["uses"].append({"experiment": experiment, "cell": name})
    layers: list[list[dict[str, Any]]] = [[] for _ in range(EXPLORER_PER_DOMAIN)]
    for run_dir, entry in sorted(by_run.items()):
        chosen: dict[str, list[Any]] = defaultdict(list)
        for row in entry["cell"].rows:
            if len(chosen[row["domain"]]) < EXPLORER_PER_DOMAIN:
                chosen[row["domain"]].append(row)
        with RunStore.read(run_dir) as store:
            for domain, rows in chosen.items():
                calls = calls_of(store, domain, [row["ord"] for row in rows])
                for layer, row in enumerate(rows):
                    layers[layer].append(_explored(row, calls[row["ord"]], entry["uses"]))
    return bounded(layers)


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
