"""Calibrating the offline agents to the behaviour stored in finished runs.

Four fifths of the episodes (a stable hash of each episode's key) estimate the ranker, the
per-profile decision weights and the updater's thresholds; the held-out fifth measures how
often the fitted model agrees with what was done there (Top-1, decisions, labels), beside
the agreement of the parameters the calibration started from. The result is an ``[agents]``
table that ``recmarket run --config`` accepts as it is, and a fit report.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from recmarket.agents.judgement import Judge
from recmarket.agents.rules.params import OfflineParams
from recmarket.calibration.decision import choice_agreement, decision_params, fit_decisions
from recmarket.calibration.labels import FittedLabels, fit_labels, label_agreement, updater_params
from recmarket.calibration.mle import Fitted
from recmarket.calibration.observations import Observations, held_out, read_observations
from recmarket.calibration.pooling import CalibrationRefused, pooled_runs
from recmarket.calibration.ranker import fit_ranker, ranker_params, top1_agreement
from recmarket.embedding import load_embedder
from recmarket.files import write_text_whole

UNREAD_WARNING = 0.5  # warn when the lexicon cannot read more than this share of claims


@dataclass(frozen=True)
class Calibration:
    """What a calibration found: the fitted parameters as settings, each part's fit, the
    held-out agreements, and what it warns of."""

    params: OfflineParams
    ranker: Fitted | None
    decisions: dict[str, Fitted]
    labels: FittedLabels
    held_out: dict[str, dict[str, float]]  # measure -> {"fitted": x, "prior": y, "n": n}
    warnings: list[str] = field(default_factory=list)
    runs: list[str] = field(default_factory=list)

    def report(self) -> dict[str, Any]:
        """Everything the fit found, as JSON-ready data (stored beside the parameters)."""
        return {
            "runs": self.runs,
            "ranker": asdict(self.ranker) if self.ranker else None,
            "decisions": {p: asdict(f) for p, f in self.decisions.items()},
            "labels": asdict(self.labels),
            "held_out": self.held_out,
            "warnings": self.warnings,
        }


def _split(observations: Sequence[Any]) -> tuple[list[Any], list[Any]]:
    train = [o for o in observations if not held_out(o.episode)]
    test = [o for o in observations if held_out(o.episode)]
    return train, test


def _unidentified(fitted: Fitted | FittedLabels, where: str) -> list[str]:
    return [
        f"{where}.{e.name} is not identified by these runs; "
        + (
            f"its optimum {e.value:g} has no finite standard error (on a bound, or the fit "
            "did not converge)"
            if e.fitted
            else f"kept at {e.value:g}"
        )
        for e in fitted.estimates
        if not e.identified
    ]


def _refuse_infinite(fits: list[tuple[str, Fitted | None]], runs: list[str]) -> None:
    """A likelihood that is not a finite number fits nothing: refuse rather than write the
    starting values as estimates."""
    for where, fitted in fits:
        if fitted is not None and not math.isfinite(fitted.log_likelihood):
            raise CalibrationRefused(
                f"{', '.join(runs)}: the {where} log-likelihood is {fitted.log_likelihood} "
                "on these runs, so nothing can be fitted; nothing was written"
            )


def calibrate(
    run_dirs: Sequence[Path], prior: OfflineParams | None = None, pool_backends: bool = False
) -> Calibration:
    """Estimate the offline model's choice parameters from the runs' stored role calls,
    starting from ``prior`` (by default the model's documented defaults, with the scale the
    first run read levels on). Runs that cannot be pooled (``pooling``), a run with nothing
    to fit and a likelihood that is not finite are refused (``CalibrationRefused``)."""
    runs = pooled_runs(list(run_dirs), pool_backends)
    first = runs[0].config
    prior = prior or OfflineParams(scale=first.agents.scale)
    judge = Judge.of(load_embedder(first.embedder), prior.scale)
    observations = read_observations(run_dirs, judge, prior.ranker.long_term_weight)
    used = {
        o.episode[0]
        for group in (observations.rankings, observations.decisions, observations.labels)
        for o in group
    }
    for run in runs:
        if str(run.path) not in used:
            raise CalibrationRefused(
                f"{run.path}: none of its {run.episodes} episodes has a shortlist, decision or "
                "label to fit (every such call failed)"
            )
    calibration = fit_observations(observations, prior, [str(d) for d in run_dirs])
    if len({run.backends for run in runs}) > 1:
        calibration.warnings.append(
            "pooled runs answered by different backends (--pool-backends): "
            + "; ".join(f"{run.path}: {dict(run.backends)}" for run in runs)
        )
    return calibration


def fit_observations(
    observations: Observations, prior: OfflineParams, runs: list[str]
) -> Calibration:
    """Fit the ranker, each profile's decision and the updater's thresholds to the
    observations, starting from ``prior``, and check each on held-out episodes;
    ``CalibrationRefused`` where a likelihood is not finite."""
    warnings = []
    if observations.explanations and (
        observations.unread_claims / observations.explanations > UNREAD_WARNING
    ):
        warnings.append(
            f"the lexicon read no claimed level in {observations.unread_claims} of "
            f"{observations.explanations} explanations: the claim weights rest on the others"
        )
    rank_train, rank_test = _split(observations.rankings)
    decide_train, decide_test = _split(observations.decisions)
    label_train, label_test = _split(observations.labels)

    ranker = fit_ranker(rank_train, prior.ranker) if rank_train else None
    _refuse_infinite([("ranker", ranker)], runs)
    if ranker is None:
        warnings.append("no shortlists in these runs (platform-centric): the ranker is not fitted")
    ranked = prior.ranker
    if ranker is not None:
        try:
            ranked = ranker_params(ranker, prior.ranker)
        except ValidationError as exc:
            reason = exc.errors()[0]["msg"]
            warnings.append(f"the fitted ranker is not kept ({reason}): it stays at its prior")
    decisions = fit_decisions(decide_train, prior.decision, ranked.credence)
    _refuse_infinite([(f"decision.{p}", f) for p, f in decisions.items()], runs)
    labels = fit_labels(label_train, prior.update)
    for fitted, where in [(ranker, "ranker"), (labels, "update")] + [
        (f, f"decision.{p}") for p, f in decisions.items()
    ]:
        if fitted is not None:
            warnings += _unidentified(fitted, where)
    if not label_train:
        warnings.append("no readable labels in these runs (no reputation): thresholds kept")

    params = prior.model_copy(
        update={
            "ranker": ranked,
            "decision": decision_params(decisions, prior.decision),
            "update": updater_params(labels, prior.update),
        }
    )
    measures = {
        "top1": (rank_test, lambda test, p: top1_agreement(test, p.ranker)),
        "decision": (decide_test, choice_agreement),
        "label": (label_test, lambda test, p: label_agreement(test, p.update)),
    }
    agreement = {
        name: {"fitted": measure(test, params), "prior": measure(test, prior), "n": len(test)}
        for name, (test, measure) in measures.items()
        if test
    }
    return Calibration(params, ranker, decisions, labels, agreement, warnings, runs)


def _toml_value(value: Any) -> str:
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (tuple, list)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    return repr(float(value)) if isinstance(value, float) else str(value)


def _toml_tables(prefix: str, data: dict[str, Any]) -> list[str]:
    scalars = {k: v for k, v in data.items() if not isinstance(v, dict)}
    lines = [f"[{prefix}]", *(f"{k} = {_toml_value(v)}" for k, v in scalars.items()), ""]
    for key, value in data.items():
        if isinstance(value, dict):
            lines += _toml_tables(f"{prefix}.{key}", value)
    return lines


def write_params(calibration: Calibration, path: Path) -> Path:
    """The calibrated ``[agents]`` tables (ranker, decision, update) as TOML, and the fit
    report as JSON beside them (``NAME.fit.json``)."""
    p = calibration.params
    header = [
        f"# recmarket calibrate: offline choice parameters from {len(calibration.runs)} run(s)",
        *(f"#   {run}" for run in calibration.runs),
        f"# fit report: {path.with_suffix('.fit.json').name}",
        "",
    ]
    lines = header
    for part in ("ranker", "decision", "update"):
        lines += _toml_tables(f"agents.{part}", getattr(p, part).model_dump())
    write_text_whole(path, "\n".join(lines))
    report = path.with_suffix(".fit.json")
    write_text_whole(report, json.dumps(calibration.report(), indent=1, default=float))
    return report
