"""The pilot on the report's first screen: that a pilot ran, with its backend, units, calls
and cost; which estimands' intervals merged their strata or have none; and where the
prediction-powered verdict on a contrast differs from the offline one (in one tiny study
the PPI interval for Exaggeration's Top-1 contrast excluded zero while the offline verdict
above it said "no detectable effect", and nothing said that they disagree).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from recmarket.report.bill import billed
from recmarket.report.ppi_table import verdict
from recmarket.report.summary import backend_name
from recmarket.run.pilot import PilotPlan
from recmarket.run.pilot_record import read_pilot
from recmarket.run.store import STORE_NAME, RunStore

NAMED = 4  # estimands named in a line before the rest are counted


def _named(names: Sequence[str]) -> str:
    shown = ", ".join(names[:NAMED])
    return shown + (f" and {len(names) - NAMED} more" if len(names) > NAMED else "")


def _bill(out: Path, plan: PilotPlan) -> tuple[int, float, str]:
    """Calls the pilot backend sent and their USD over the pilot's stores (its noise
    replays' too), and its backend in words."""
    calls, usd, backend = 0, 0.0, ""
    for run_dir in sorted({d for c in plan.cells for d, _ in c.played_dirs()}):
        if not (out / run_dir / STORE_NAME).is_file():
            continue
        with RunStore.read(out / run_dir) as store:
            cfg = store.config()
        backend = backend or backend_name(cfg)
        for n, cost in billed(out / run_dir, cfg).values():
            calls, usd = calls + n, usd + cost
    return calls, usd, backend


def pilot_facts(out_dirs: Sequence[Path], rows: Sequence[dict[str, Any]]) -> list[tuple[str, str]]:
    """The "pilot" line of what ran, one a directory with a pilot: its backend, the share
    of units it played and how many, and the calls and USD it spent."""
    levels = [r for r in rows if r["kind"] == "level"]
    facts = []
    for out in out_dirs:
        plan = read_pilot(out)
        if plan is None:
            continue
        calls, usd, backend = _bill(out, plan)
        most = max(levels, key=lambda r: r["units"], default=None)
        units = f"{most['pilot_n']} of {most['units']} units a cell" if most else "no units yet"
        facts.append(
            (
                "pilot",
                f"{backend or 'not played yet'} (pilot file {plan.file}), on {plan.share:g} of "
                f"the units at pilot seed {plan.seed}: {units}, {calls:,} model calls sent, "
                f"${usd:,.2f}; its prediction-powered intervals are in the PPI section",
            )
        )
    return facts


def pilot_findings(rows: Sequence[dict[str, Any]]) -> list[str]:
    """The PPI verdicts beside the offline ones, and which estimands merged their strata
    or have no interval, a line each."""
    if not rows:
        return []
    said = []
    contrasts = [r for r in rows if r["kind"] == "contrast"]
    apart = [
        (r, verdict(r["offline_low"], r["offline_high"]), verdict(r["ppi_low"], r["ppi_high"]))
        for r in contrasts
    ]
    judged = [(r, off, ppi) for r, off, ppi in apart if "no interval" not in (off, ppi)]
    differ = [(r, off, ppi) for r, off, ppi in judged if off != ppi]
    if judged:
        line = (
            f"The pilot's prediction-powered verdict agrees with the offline one on "
            f"{len(judged) - len(differ)} of {len(judged)} contrasts."
        )
        if differ:
            line += " They disagree on " + "; ".join(
                f"{r['name']} (offline: {off}; PPI: {ppi}, {r['ppi']:+.3f} "
                f"[{r['ppi_low']:+.3f}, {r['ppi_high']:+.3f}])"
                for r, off, ppi in differ[:NAMED]
            )
            line += f" and {len(differ) - NAMED} more." if len(differ) > NAMED else "."
        said.append(line)
    merged = [r["name"] for r in rows if r["strata"] in ("domain", "pooled")]
    bare = [r["name"] for r in rows if not r["n_strata"]]
    if merged:
        said.append(
            f"{len(merged)} of {len(rows)} PPI estimands merged their seed x domain strata to "
            f"reach the pilot's minimum units a stratum: {_named(merged)}."
        )
    if bare:
        said.append(
            f"{len(bare)} of {len(rows)} PPI estimands have no interval, too few pilot units "
            f"even pooled: {_named(bare)}."
        )
    return said
