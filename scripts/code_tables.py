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
from typing import TYPE_CHECKING, Any

from table_writers import markdown

if TYPE_CHECKING:
    from recmarket.validity.card import CardRow


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


# (measure, protocol, scorer, candidates, pool) of the card's rows the docs show: the user's
# roles beside the ladder, at 1 of 10 random negatives unless named
_TEN, _ANY = (10, "random"), (0, "")
PEOPLE_ROWS = (
    *(
        ("pairwise_1to1", "history", s, *_TEN)
        for s in ("ranker", "centroid", "recent_centroid", "bm25")
    ),
    *(
        ("hr@1", "history", s, *_TEN)
        for s in ("ranker", "popularity", "centroid", "recent_centroid", "bm25", "cooccurrence")
    ),
    *(("hr@1", "history", s, 10, "same-kind") for s in ("ranker", "centroid", "bm25")),
    *(("hr@1", "history", s, 20, "random") for s in ("ranker", "centroid", "bm25")),
    ("hr@1", "request", "ranker", *_TEN),
    ("hr@1", "request", "ranker", 10, "same-kind"),
    ("hr@1", "request", "ranker", 20, "random"),
    ("buy_accuracy_1to1", "request", "decision", *_TEN),
    ("p_buy_rated_1_2", "request", "decision", *_ANY),
    ("p_buy_rated_4_5", "request", "decision", *_ANY),
    *(
        (m, "history", s, *_ANY)
        for m in ("star_mae", "star_rmse", "star_spearman")
        for s in ("review", "person_mean", "always_5")
        if (m, s) != ("star_spearman", "always_5")  # a constant has no rank correlation
    ),
)
# the per-category table: the defaults on every person, by domain
DOMAIN_ROWS = (
    ("hr@1", "history", "ranker", *_TEN),
    ("hr@1", "history", "centroid", *_TEN),
    ("hr@1", "history", "bm25", *_TEN),
    ("pairwise_1to1", "history", "ranker", *_TEN),
    ("hr@1", "history", "ranker", 10, "same-kind"),
    ("hr@1", "request", "ranker", *_TEN),
    ("p_buy_rated_1_2", "request", "decision", *_ANY),
    ("p_buy_rated_4_5", "request", "decision", *_ANY),
    ("star_rmse", "history", "review", *_ANY),
    ("star_rmse", "history", "person_mean", *_ANY),
)


def _cell(row: CardRow | None) -> str:
    if row is None or row.value != row.value:  # no stars before fitting: no value
        return "-"
    return f"{row.value:.3f} [{row.low:.3f}, {row.high:.3f}] (n {row.n_people})"


def _label(key: tuple[str, str, str, int, str]) -> list[str]:
    measure, protocol, scorer, candidates, pool = key
    return [measure, protocol, scorer, f"1 of {candidates}, {pool}" if candidates else "-"]


@functools.cache
def _people() -> dict[str, str]:
    """The validity cards on the shared real slices (``recmarket data real-slice``), with 9
    and 19 negatives from both pools: the user as it was before it was fitted to real people
    (docs/people-before.toml), and at its defaults, fitted on the fit half of the people,
    on every person (in-sample for the fitted parameters) and on the report half the fit
    never saw; values with 95% percentile-bootstrap intervals over people. Also the
    defaults' card by category, and what was left out."""
    import asyncio
    import tempfile

    from recmarket.config_file import build_config
    from recmarket.data.samples import real_slice
    from recmarket.validity.validate import SKIPPED_CSV, skipped_summary, validate_settings

    root = Path(__file__).resolve().parents[1]
    before = build_config(root / "docs" / "people-before.toml", {}, {})
    defaults = build_config(None, {}, {})
    runs = [("before fitting, all people", before, "all")]
    runs += [("defaults, all people (in-sample)", defaults, "all")]
    runs += [("defaults, report half", defaults, "report")]
    cards, by_domain = [], {}
    with tempfile.TemporaryDirectory() as folder:
        data = Path(folder) / "slice"
        real_slice(root.parent / "shared" / "data" / "amazon23", data)
        for name, settings, half in runs:
            out = Path(folder) / name
            rows = asyncio.run(
                validate_settings(
                    settings, data, [], out, cards=Path(folder), half=half, negatives=(9, 19)
                )
            )
            cards.append({r.key: r for r in rows if r.domain == "all"})
            if name.startswith("defaults, all"):
                left = skipped_summary(out / SKIPPED_CSV)
                for r in rows:
                    by_domain.setdefault(r.domain, {})[r.key] = r
    head = ["measure", "protocol", "scorer", "candidates", *(name for name, _, _ in runs)]
    card = markdown(head, [[*_label(k), *(_cell(c.get(k)) for c in cards)] for k in PEOPLE_ROWS])
    domains = sorted(by_domain, key=lambda d: (d == "all", d))
    per = markdown(
        ["measure", "protocol", "scorer", "candidates", *domains],
        [[*_label(k), *(_cell(by_domain[d].get(k)) for d in domains)] for k in DOMAIN_ROWS],
    )
    report, every = _targets(cards[2]), _targets(cards[1])  # the defaults' two readings
    head = ["target", "defaults, report half", "met?", "defaults, all people (in-sample)"]
    rows = [[target, *report[target], every[target][0]] for target in report]
    return {
        "people-card": card,
        "people-domains": per + f"\nLeft out: {left}.\n",
        "people-targets": markdown(head, rows),
    }


def _targets(card: dict) -> dict[str, tuple[str, str]]:
    """Issue 66's targets on one card (domain all, 1 of 10 random negatives): each target's
    figures, and whether it is met, by how much either way."""

    def get(measure: str, protocol: str, scorer: str, draw: tuple[int, str] = _TEN) -> Any:
        return card[(measure, protocol, scorer, *draw)]

    def by(margin: float, unit: str = "points") -> str:
        size = f"{abs(margin) * (100 if unit == 'points' else 1):.{1 if unit == 'points' else 3}f}"
        return (
            f"{'yes' if margin >= 0 else 'no'}, {'by' if margin >= 0 else 'short by'} {size} {unit}"
        )

    hr, centroid = get("hr@1", "history", "ranker"), get("hr@1", "history", "centroid")
    pw = get("pairwise_1to1", "history", "ranker")
    rho, rho_mean = (get("star_spearman", "history", s, _ANY) for s in ("review", "person_mean"))
    rmse, rmse_mean = (get("star_rmse", "history", s, _ANY) for s in ("review", "person_mean"))
    gap = card.get(("p_buy_4_5_less_1_2", "request", "decision", *_ANY))
    return {
        "History alone: HR@1 at least the centroid's less 1 point": (
            f"{hr.value:.3f} against {centroid.value:.3f}",
            by(hr.value - (centroid.value - 0.01)),
        ),
        "History alone: pairwise lower bound above 50%": (
            f"{pw.value:.3f} [{pw.low:.3f}, {pw.high:.3f}]",
            by(pw.low - 0.5),
        ),
        "Review: Spearman at least 0.8 x the person's mean's": (
            f"{rho.value:.3f} against {rho_mean.value:.3f} ({rho.value / rho_mean.value:.2f} x)",
            by(rho.value / rho_mean.value - 0.8, "x"),
        ),
        "Review: RMSE no worse than the person's mean's plus 0.02": (
            f"{rmse.value:.3f} against {rmse_mean.value:.3f}",
            by(rmse_mean.value + 0.02 - rmse.value, "stars"),
        ),
        "Decision: P(buy) of what people rated 4-5 less 1-2 (no target: reported)": (
            "-" if gap is None else f"{gap.value:+.3f} [{gap.low:+.3f}, {gap.high:+.3f}]",
            "-",
        ),
    }


@dataclass(frozen=True)
class CodeTable:
    """How a table is made from the code: the function, whether it takes minutes (left
    alone under --quick), and whether it reads ../shared's real samples (left alone where
    they are absent)."""

    make: Callable[[], str]
    slow: bool = False
    reads_shared: bool = False


FROM_CODE: dict[str, CodeTable] = {
    "offline-parameters": CodeTable(offline_parameters),
    "first-run": CodeTable(first_run),
    **{
        name: CodeTable(
            functools.partial(lambda n: _realism()[n], name), slow=True, reads_shared=True
        )
        for name in ("data-realism", "data-titles", "data-levels")
    },
    "calibration-recovery": CodeTable(calibration_recovery, slow=True),
    "llm-cost-plan": CodeTable(llm_cost_plan, slow=True),
    **{
        name: CodeTable(
            functools.partial(lambda n: _people()[n], name), slow=True, reads_shared=True
        )
        for name in ("people-card", "people-domains", "people-targets")
    },
    **{name: CodeTable(make) for name, make in MODEL_TABLES.items()},  # seconds
}
