"""The docs' tables made from the local model's stored answers (``llm_evidence``): what
structured outputs do to its replies, its audit, and how well offline agents calibrated to
it predict its other cells. Each is made by replaying the answers through today's code."""

from __future__ import annotations

import sqlite3
from collections import Counter
from pathlib import Path

from llm_evidence import AUDIT_SEED, AUDIT_TRIALS, DOMAIN, SEED, audit_card, replayed
from table_writers import markdown

from recmarket.agents.llm.attempts import first_replies_valid, read_attempts
from recmarket.agents.llm.audit.card import wilson
from recmarket.agents.llm.parse import extract_json
from recmarket.calibration.calibrate import Calibration, calibrate
from recmarket.calibration.mle import Estimate
from recmarket.report.prediction import PredictionRow, check_predictions
from recmarket.run.store import RunStore
from recmarket.vocabulary import ROLES

REPLICATES = 20  # offline runs per checked cell, calibrate's default


def _share(passes: int, trials: int) -> str:
    """``12/36 (33%, 20%-50%)``: a count, its rate and its 95% Wilson interval."""
    if not trials:
        return "-"
    low, high = wilson(passes, trials)
    return f"{passes}/{trials} ({passes / trials:.0%}; {low:.0%}-{high:.0%})"


def _failures(episodes: list[dict]) -> tuple[int, int, str]:
    """(episodes that finished every role, episodes, the failed ones by role)."""
    failed = Counter(e["failed_role"] for e in episodes if e["failed_role"])
    by_role = ", ".join(f"{role} {n}" for role, n in sorted(failed.items())) or "none"
    return len(episodes) - sum(failed.values()), len(episodes), by_role


def structured_outputs() -> str:
    """Per role, the calls whose first reply kept the contract, with the plain-text roles
    asked for plain text and then for an array of sentences under a schema; and the
    episodes that finished every role."""
    columns = {"local-rep-text": "plain text", "local-rep": "array of sentences"}
    valid, finished = {}, {}
    for name in columns:
        with RunStore.read(replayed()[name]) as store:
            valid[name], finished[name] = first_replies_valid(store.db), _failures(store.episodes())
    asked = [role for role in ROLES if any(role in valid[n] for n in columns)]  # no copy seat
    lines = [[role, *(_share(*valid[n].get(role, (0, 0))) for n in columns)] for role in asked]
    lines.append(["**episodes that finished every role**"])
    lines[-1] += [_share(*finished[n][:2]) for n in columns]
    lines.append(["episodes failed, by role", *(finished[n][2] for n in columns)])
    header = ["role: first replies valid (95% Wilson)", *columns.values()]
    return markdown(header, lines)


def _answers(audit_store: Path, role: str) -> list[dict]:
    """The audit's answers of ``role`` that kept the contract, as JSON."""
    with sqlite3.connect(f"file:{audit_store}?mode=ro", uri=True) as db:
        calls = read_attempts(db)
    return [
        extract_json(attempts[-1].reply)
        for (asked, _), attempts in calls.items()
        if asked == role and attempts[-1].error is None
    ]


def audit() -> str:
    """The model's audit card, made again from its stored answers, and how often its
    shortlists put P1 first whatever P1 offered."""
    card, store = audit_card()
    lines = []
    for r in card.results:
        low, high = r.interval
        chance = f"{r.chance:.0%}" if r.chance else "-"
        rate = f"{r.rate:.0%}"
        lines.append(
            [r.probe, r.role, f"{r.passes}/{r.trials}", rate, f"{low:.0%}-{high:.0%}", chance]
        )
        lines[-1].append(r.verdict)
    header = ["probe", "role", "passed", "rate", "95% interval (Wilson)", "by chance", "verdict"]
    shortlists = _answers(store, "shortlist")
    p1 = sum(s["ranked_items"][0]["platform_id"] == "P1" for s in shortlists)
    labels = Counter(u["claim_reliability"] for u in _answers(store, "update"))
    return markdown(header, lines) + (
        f"\n{AUDIT_TRIALS} trials a probe, seed {AUDIT_SEED}, {DOMAIN} listings. "
        f"Shortlists that rank P1 first: {p1} of {len(shortlists)}. Labels given: "
        + ", ".join(f"{label} {n}" for label, n in sorted(labels.items()))
        + ".\n"
    )


def calibration_check() -> str:
    """``calibrate --check``: offline agents fitted to the LocalRep pilot, predicting the
    model's two NoRep cells; each value beside its prediction and interval."""
    runs = replayed()
    calibration = calibrate([runs["local-rep"]])
    checked = [runs["no-rep"], runs["no-rep-strict-exaggeration"]]
    rows = check_predictions(calibration.params, checked, REPLICATES)
    cells = list(dict.fromkeys(r.cell for r in rows))
    by = {(r.cell, r.metric): r for r in rows}
    header = ["metric"]
    for c in cells:
        first = next(r for r in rows if r.cell == c)
        header.append(
            f"{c}, {first.episodes} episodes ({first.failed} failed): "
            "model / prediction [95% interval] inside"
        )
    metrics = list(dict.fromkeys(r.metric for r in rows))
    lines = [[m, *(_predicted(by[c, m]) for c in cells)] for m in metrics]
    inside = sum(r.inside for r in rows)
    estimates = _estimates(calibration)
    kept = [name for name, e in estimates.items() if not e.fitted]
    unbounded = [name for name, e in estimates.items() if e.fitted and not e.identified]
    return markdown(header, lines) + (
        f"\n{inside} of {len(rows)} model values inside their 95% prediction interval "
        f"({REPLICATES} offline replicates a cell, seed {SEED}, {DOMAIN}). Of the fit's "
        f"{len(estimates)} parameters, {len(unbounded)} have no finite "
        f"standard error and {len(kept)} stay at their priors (no data reach them: "
        f"{', '.join(kept) or 'none'}).\n"
    )


def _predicted(r: PredictionRow) -> str:
    inside = "yes" if r.inside else "no"
    return f"{r.model:.3f} / {r.predicted:.3f} [{r.low:.3f}, {r.high:.3f}] {inside}"


def _estimates(calibration: Calibration) -> dict[str, Estimate]:
    """Every estimate of the fit by its full name (``decision.PROFILE.claim``)."""
    fits = {"ranker": calibration.ranker, "update": calibration.labels}
    fits |= {f"decision.{p}": fit for p, fit in calibration.decisions.items()}
    found = [(part, fit) for part, fit in fits.items() if fit is not None]
    return {f"{part}.{e.name}": e for part, fit in found for e in fit.estimates}
