"""Runs stored under an older form of their settings, rewritten once in the current form
(``recmarket migrate DIR``).

A run's directory and its manifest carry the hash of the settings as they were written when
it was made. Before this command every lookup of a cell hashed its settings in each older
form too (``RunConfig.older_digests``), so that such a run resumed; now a run is found by
its current hash alone, and this is the one place that knows the older ones. It rewrites,
under each run's writer lock:

- the manifest's settings and hash, where the stored hash is the one the stored settings
  had in an older form (anything else, a run of another reader or generator version say,
  is left as it is, and said);
- a reproduce's cell directory, named by the older hash, to its current name, and every
  ``plan.json`` under the directory that names it.

Settings files are rewritten by ``run/migrate_settings.py``. Running it again changes
nothing.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path

from recmarket.config import RunConfig
from recmarket.locks import WriterLock
from recmarket.run.manifest import stored_config
from recmarket.run.store import STORE_NAME, RunStore
from recmarket.run.study_plan import PLAN, PlannedCell, cell_dir, read_plan, write_plan


@dataclass
class Migrated:
    """What ``migrate`` did, and what it left, each in words."""

    runs: list[str] = field(default_factory=list)
    plans: list[str] = field(default_factory=list)
    left: list[str] = field(default_factory=list)


def migrate_runs(root: Path) -> Migrated:
    """Every run under ``root`` (``root`` itself included) stored under an older form of its
    settings, rewritten in the current one; reproduce plans follow their cells' new names."""
    done = Migrated()
    moved: dict[Path, Path] = {}
    for store in sorted(root.rglob(STORE_NAME)):
        run_dir = store.parent
        said = _migrate_run(run_dir)
        if said is None:
            continue
        if isinstance(said, str):
            done.left.append(f"{run_dir}: {said}")
            continue
        older, cfg = said
        where = run_dir
        renamed = _current_name(run_dir, cfg, older)
        if renamed is not None:
            os.replace(run_dir, renamed)
            moved[run_dir.resolve()] = renamed.resolve()
            where = renamed
        was = f" (was {run_dir.name})" if renamed is not None else ""
        done.runs.append(f"{where}: settings rewritten in the current form{was}")
    for plan in sorted(root.rglob(PLAN)):
        if _follow(plan.parent, moved):
            done.plans.append(f"{plan}: cells renamed")
    return done


def _migrate_run(run_dir: Path) -> tuple[str, RunConfig] | str | None:
    """The run's older hash and settings once its manifest is rewritten; None where it is in
    the current form already; a reason where it is left as it is."""
    with WriterLock(run_dir), RunStore(run_dir / STORE_NAME) as store:
        manifest = store.manifest()
        if "config" not in manifest:
            return "no settings in its manifest (not a finished store)"
        cfg = stored_config(manifest)
        older = manifest.get("config_hash", "")
        if older == cfg.digest():
            return None
        if older not in cfg.older_digests():
            return (
                "its settings hash otherwise than this version hashes them, and not because "
                "of an older form (another review reader or demo generator made its data): "
                "left as it is"
            )
        now = {"config": cfg.model_dump_json(), "config_hash": cfg.digest()}
        with store.transaction() as db:  # both or neither
            db.executemany(
                "UPDATE manifest SET value = ? WHERE key = ?",
                [(value, key) for key, value in now.items()],
            )
        return older, cfg


def _current_name(run_dir: Path, cfg: RunConfig, older: str) -> Path | None:
    """Where a reproduce's cell directory named by the older hash goes (``cell_dir``); None
    for any other directory, or where that name is taken."""
    out = run_dir.parent.parent
    if run_dir != out / cell_dir(cfg.condition, older):
        return None
    renamed = out / cell_dir(cfg.condition, cfg.digest())
    return None if renamed.exists() else renamed


def _follow(out: Path, moved: dict[Path, Path]) -> bool:
    """Point the plan in ``out`` at its cells' new directories; whether it changed."""
    cells = read_plan(out)
    followed = [_moved(out, cell, moved) for cell in cells]
    if followed == cells:
        return False
    write_plan(out, followed)  # under the directory's writer lock, replaced whole
    return True


def _moved(out: Path, cell: PlannedCell, moved: dict[Path, Path]) -> PlannedCell:
    now = moved.get((out / cell.run_dir).resolve())
    if now is None:
        return cell
    return replace(cell, run_dir=os.path.relpath(now, out.resolve()))
