"""Which runs one calibration may pool, and the refusals when it may not.

A calibration fits one offline model to the behaviour in its runs, so the runs must be
choice situations of one kind and each must count once:

- the same market shape: N (and entrants), K, J, the composition of policies, and whether a
  user agent shortlists (Platform-Centric decisions are over one platform's J items, the
  others over a shortlist of K). Reputation may differ: the ranker reads records where
  there are any;
- each run once: the same store given twice, a copy of it (the same manifest), or two
  offline runs of one configuration (their records are the same, being seeded) would count
  the same episodes twice;
- behaviour of one kind: runs whose shortlists, decisions or labels were answered by
  different backends (a model and the offline rules, two models) are two behaviours, pooled
  only on request (``pool_backends``);
- something to fit: a run without a finished episode is refused rather than read as
  evidence for the starting values;
- a run at rest: one that another process is still writing would be fitted to the episodes
  it happens to have, so it is refused until that process ends.

A run that ``--check`` predicts must be a model run (an offline one would compare the
offline agents with themselves) and must not be one of the fitted runs (its prediction
would be judged on the data it was fitted to).

Each refusal is one line naming the run and the reason (``CalibrationRefused``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from recmarket.agents.llm.config import OFFLINE
from recmarket.catalogue.conditions import condition
from recmarket.catalogue.roles import role_setting
from recmarket.config import RunConfig
from recmarket.locks import writer_elsewhere
from recmarket.run.manifest import stored_roles
from recmarket.run.store import RunStore
from recmarket.vocabulary import RoleName

FITTED_ROLES: tuple[RoleName, ...] = (
    "shortlist",
    "decide",
    "update",
)  # the roles whose behaviour is fitted


class CalibrationRefused(ValueError):
    """The runs cannot be calibrated together (or at all); the message says which and why."""


@dataclass(frozen=True)
class PooledRun:
    """A run as the calibration pools it: its settings, identity, episode count and what
    answered each fitted role."""

    path: Path
    config: RunConfig
    identity: tuple[str, str]  # the manifest's configuration hash and creation time
    episodes: int
    backends: tuple[tuple[str, str], ...]  # (role, what answered it) of the fitted roles

    @property
    def shape(self) -> dict[str, object]:
        """The market shape that makes runs poolable: N, entrants, K, J, the composition and
        whether a user agent shortlists."""
        market = self.config.market
        return {
            "N": market.n_platforms,
            "entrants": len(market.entrants),
            "K": market.shortlist_k,
            "J": market.j,
            "policies": ",".join(market.policies),
            "user agent": condition(self.config.condition).user_agent,
        }


def _backends(cfg: RunConfig, outside: dict[str, str]) -> tuple[tuple[str, str], ...]:
    def answered(role: RoleName) -> str:
        if cfg.llm is not None and (name := cfg.llm.model_for(role)) != OFFLINE:
            return f"model {cfg.llm.models[name].name}"
        chosen = cfg.roles.get(role)
        return outside.get(role) or (chosen and role_setting(chosen).backend) or "offline rules"

    return tuple((role, answered(role)) for role in FITTED_ROLES)


def read_run(path: Path) -> PooledRun:
    """The run in ``path``; ``CalibrationRefused`` if another process is writing it."""
    writer = writer_elsewhere(path)
    if writer is not None:
        raise CalibrationRefused(
            f"{path}: another recmarket process (pid {writer}) is still writing this run; "
            "calibrate it once that run has finished"
        )
    with RunStore.read(path) as store:
        manifest = store.manifest()
        config = store.config()
        episodes = store.db.execute("SELECT COUNT(*) FROM episodes").fetchone()[0]
    outside = stored_roles(manifest)
    identity = (manifest["config_hash"], manifest.get("created", ""))
    return PooledRun(path, config, identity, episodes, _backends(config, outside))


def _described(values: dict[str, object]) -> str:
    return ", ".join(f"{k}={v}" for k, v in values.items())


def pooled_runs(paths: list[Path], pool_backends: bool = False) -> list[PooledRun]:
    """The runs, read and checked to be poolable; ``CalibrationRefused`` naming the first
    run that is not, and why."""
    runs: list[PooledRun] = []
    for path in paths:
        run = read_run(path)
        if run.episodes == 0:
            raise CalibrationRefused(f"{path}: no finished episode to calibrate from")
        for earlier in runs:
            same_store = earlier.path.resolve() == path.resolve()
            same_records = earlier.identity == run.identity or (
                earlier.identity[0] == run.identity[0] and not run.config.uses_llm
            )
            if same_store or same_records:
                raise CalibrationRefused(
                    f"{path}: the same run as {earlier.path} (its episodes would count twice); "
                    "give each run once"
                )
        first = runs[0] if runs else None
        if first is not None and run.shape != first.shape:
            differs = {k: v for k, v in run.shape.items() if first.shape[k] != v}
            theirs = {k: first.shape[k] for k in differs}
            raise CalibrationRefused(
                f"{path}: a market of {_described(differs)} where {first.path} has "
                f"{_described(theirs)}; one model cannot be fitted to choices of both "
                "shapes: calibrate them apart"
            )
        if first is not None and run.backends != first.backends and not pool_backends:
            raise CalibrationRefused(
                f"{path}: answered by {_described(dict(run.backends))} where {first.path} was "
                f"answered by {_described(dict(first.backends))}; pooling two behaviours "
                "fits neither: calibrate them apart, or give --pool-backends to pool them"
            )
        runs.append(run)
    return runs


def checked_runs(paths: list[Path], fitted: list[Path]) -> list[Path]:
    """The runs ``--check`` predicts, each a model run at rest that was not fitted;
    ``CalibrationRefused`` naming the first that is not."""
    fitted_runs = [read_run(path) for path in fitted]
    for path in paths:
        run = read_run(path)
        for earlier in fitted_runs:
            if earlier.path.resolve() == path.resolve() or earlier.identity == run.identity:
                raise CalibrationRefused(
                    f"{path}: one of the calibrated runs ({earlier.path}); a prediction is "
                    "checked against a model run it was not fitted to: give --check another"
                )
        if not run.config.uses_llm:
            raise CalibrationRefused(
                f"{path}: an offline run; --check compares the calibrated offline agents with "
                "a model run (one whose roles a model answered)"
            )
    return paths
