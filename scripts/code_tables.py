"""The docs' tables made from the code alone, no stored run needed: the offline model's
parameters, the README's first run, the data's realism against ../shared's real samples, the
calibration's recovery of known parameters, and the local model's stored answers replayed
(``llm_tables``). ``FROM_CODE`` says which take minutes."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from table_writers import markdown


def offline_parameters() -> str:
    """Every parameter of the offline model with its default, meaning and source (a table
    of values per profile is shown as "per profile")."""
    from recmarket.agents.rules.params import OfflineParams
    from recmarket.profiles import PROFILE_NAMES

    lines = []
    defaults = OfflineParams()
    for group in OfflineParams.model_fields:
        model = getattr(defaults, group)
        for name, field in type(model).model_fields.items():
            extra = field.json_schema_extra if isinstance(field.json_schema_extra, dict) else {}
            value = getattr(model, name)
            if isinstance(value, dict):
                per_profile = set(value) <= set(PROFILE_NAMES)
                shown = (
                    "per profile"
                    if per_profile
                    else ", ".join(f"{k} {v:g}" for k, v in value.items())
                )
            else:
                shown = str(value)
            meaning = field.description or ""
            lines.append([f"`{group}.{name}`", shown, meaning, str(extra["source"])])
    return markdown(["parameter", "default", "meaning", "source"], lines)


FIRST_RUN_ROWS = (
    "stage",
    "target present",
    "target shortlisted",
    "target top-1",
    "target purchase",
    "top-1 share: exaggeration",
)


def first_run() -> str:
    """The README's first command's funnel, as it prints it (the rows the README keeps)."""
    import os
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory() as out:
        printed = subprocess.run(
            ["recmarket", "run", "--requests", "120", "--out", str(Path(out) / "first")],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "COLUMNS": "120", "NO_COLOR": "1"},
        ).stdout.splitlines()
    box = [line for line in printed if line[:1] in "┏┡└"]
    rows = [
        line
        for line in printed
        if line[:1] in "┃│" and re.split("[┃│]", line)[1].strip() in FIRST_RUN_ROWS
    ]
    kept = [box[0], rows[0], box[1], *rows[1:], box[-1]]
    return "```text\n" + "\n".join(kept) + "\n```\n"


RECOVERY = Path(__file__).resolve().parents[1] / "docs" / "specs" / "calibration-recovery.toml"


def _truth(known: dict) -> dict[str, float]:
    """The known parameters by the names the calibration gives its estimates."""
    agents = known["agents"]
    ranker = {
        k: v
        for k, v in agents["ranker"].items()
        if k not in ("noise", "label_credibility", "rep_instruction")
    }
    truth = {f"ranker.{k}": float(v) for k, v in ranker.items()}
    truth |= {
        f"ranker.label_credibility.{k}": v for k, v in agents["ranker"]["label_credibility"].items()
    }
    for profile, weights in agents["decision"]["profiles"].items():
        truth |= {f"decision.{profile}.{k}": float(v) for k, v in weights.items()}
    return truth | {f"update.{k}": float(v) for k, v in agents["update"].items()}


def calibration_recovery() -> str:
    """A run of the offline model with known parameters (docs/specs), calibrated back: each
    estimate beside its true value, then each fit's log-likelihood and the held-out
    agreements (about a minute)."""
    import tempfile
    import tomllib

    from recmarket.agents.rules.params import OfflineParams, RankerParams
    from recmarket.calibration.calibrate import calibrate
    from recmarket.config import RunConfig
    from recmarket.run.play_options import PlayOptions
    from recmarket.run.runner import run

    known = tomllib.loads(RECOVERY.read_text())
    truth = _truth(known)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "recovery"  # the held-out fifth is a hash of this name and the keys
        run(RunConfig.model_validate(known), out, PlayOptions(keep_calls=True)).store.close()
        given = RunConfig.model_validate(known).agents
        # the Rep instruction's share is held fixed by the fit: at the run's own value
        ranker = RankerParams(rep_instruction=given.ranker.rep_instruction)
        prior = OfflineParams(scale=given.scale, ranker=ranker)
        found = calibrate([out], prior)
    assert found.ranker is not None  # a LocalRep run has shortlists
    fits = {"ranker": found.ranker} | {f"decision.{p}": f for p, f in found.decisions.items()}
    estimates = {f"{where}.{e.name}": e for where, fit in fits.items() for e in fit.estimates}
    estimates |= {f"update.{e.name}": e for e in found.labels.estimates}
    lines = [
        [name, f"{value:g}", f"{estimates[name].value:.3f}", f"{estimates[name].se or 0:.3f}"]
        for name, value in truth.items()
    ]
    fitted = [
        [
            where,
            f"{fit.log_likelihood:,.1f}",
            f"{fit.null_log_likelihood:,.1f}",
            f"{1 - fit.log_likelihood / fit.null_log_likelihood:.2f}",
            str(fit.observations),
        ]
        for where, fit in fits.items()
    ]
    held = [
        [measure, f"{v['fitted']:.1%}", f"{v['prior']:.1%}", str(int(v["n"]))]
        for measure, v in found.held_out.items()
    ]
    return (
        markdown(["parameter", "true", "estimated", "SE"], lines)
        + "\n"
        + markdown(["fit", "log-likelihood", "null", "pseudo-R2", "observations"], fitted)
        + "\n"
        + markdown(["held out", "fitted", "defaults", "n"], held)
    )


@functools.cache
def _realism() -> dict[str, str]:
    """The data-realism tables (scripts/measure_data_realism.py): about a minute and a half,
    and only where ../shared/data/amazon23 is."""
    import measure_data_realism

    return measure_data_realism.tables()


@functools.cache
def _people() -> dict[str, str]:
    """The validity-card tables (scripts/people_tables.py): about a minute and a half, and
    only where ../shared/data/amazon23 is."""
    import people_tables

    return people_tables.tables()


# NAME -> how a table made from the code alone is written, and whether it takes minutes
def _llm_tables() -> ModuleType:
    """The tables of the local model's stored answers, imported when one is made (they
    replay the answers, and calibrate)."""
    import llm_tables

    return llm_tables


def belief_after_records() -> str:
    """The offline ranker's belief in an overclaim after 0-10 records of one label
    (``recmarket.api.belief``, the defaults)."""
    from recmarket.api import belief

    counts = (0, 1, 2, 3, 5, 10)
    header = "| records | " + " | ".join(str(n) for n in counts) + " |"
    lines = [header, "|" + "---|" * (len(counts) + 1)]
    for label in ("high", "mixed", "low"):
        values = " | ".join(f"{belief([label] * n):.3f}" for n in counts)
        lines.append(f"| {label} | {values} |")
    return "\n".join(lines) + "\n"


MODEL_TABLES: dict[str, Callable[[], str]] = {
    "belief-after-records": belief_after_records,
    "llm-structured-outputs": lambda: _llm_tables().structured_outputs(),
    "llm-audit": lambda: _llm_tables().audit(),
    "llm-calibration-check": lambda: _llm_tables().calibration_check(),
}


def llm_cost_plan() -> str:
    """The paper's matrix, one seed, priced with OpenAI's gpt-5-mini from the bundled price
    table: each plan's cost, its share of the live standard price and its wall time."""
    import tempfile

    from recmarket.experiments.spec import PAPER_MATRIX
    from recmarket.run.cost_plan import cheapest
    from recmarket.run.estimate import estimate_plan

    model = {"llm": {"models": {"m": {"name": "gpt-5-mini"}}, "roles": {"default": "m"}}}
    with tempfile.TemporaryDirectory() as folder:
        cells = estimate_plan(list(PAPER_MATRIX), Path(folder), Path(folder), 1.0, model, seeds=1)
    plans, chosen = cheapest(cells)
    rows = [
        [
            f"**{p.name}**" if p is chosen else p.name,
            f"{p.cost:,.2f}",
            f"{p.share:.2f}" if p.share is not None else "-",
            f"{p.hours:,.1f}",
            ", ".join(f"{way} {n}" for way, n in sorted(p.ways.items())),
        ]
        for p in plans
    ]
    calls = sum(c.calls for c in {c.run_dir: c for c in cells}.values())
    head = ["plan", "USD", "x live standard", "wall hours", "cells bought"]
    unique = len({c.run_dir for c in cells})
    return markdown(head, rows) + f"\n{unique} unique cells, {calls:,.0f} calls.\n"


@dataclass(frozen=True)
class CodeTable:
    """How a table is made from the code: the function, whether it takes minutes (left
    alone under --quick), and whether it reads ../shared's real samples (left alone where
    they are absent)."""

    make: Callable[[], str]
    slow: bool = False
    reads_shared: bool = False


def _shared(made: Callable[[], dict[str, str]], names: tuple[str, ...]) -> dict[str, CodeTable]:
    """Tables one slow run over ../shared's real samples makes together, each by name."""
    return {
        name: CodeTable(functools.partial(lambda n: made()[n], name), slow=True, reads_shared=True)
        for name in names
    }


FROM_CODE: dict[str, CodeTable] = {
    "offline-parameters": CodeTable(offline_parameters),
    "first-run": CodeTable(first_run),
    **_shared(_realism, ("data-realism", "data-titles", "data-levels")),
    "calibration-recovery": CodeTable(calibration_recovery, slow=True),
    "llm-cost-plan": CodeTable(llm_cost_plan, slow=True),
    **_shared(_people, ("people-card", "people-domains", "people-targets")),
    **{name: CodeTable(make) for name, make in MODEL_TABLES.items()},  # seconds
}
