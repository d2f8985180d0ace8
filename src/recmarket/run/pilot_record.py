"""A pilot's record, ``pilot.json`` in the reproduce directory: written whole before anything
plays, read back validated, and each recorded cell checked against what its pilot makes of
the study (a hand-edited record is refused, never read).
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

from pydantic import TypeAdapter, ValidationError

from recmarket.config import RunConfig
from recmarket.config_file import ConfigError
from recmarket.files import write_text_whole
from recmarket.run.pilot import PILOT, PilotCell, PilotPlan
from recmarket.run.pilot_file import PilotFile, noise_configs, pilot_config, replay_configs
from recmarket.run.pilot_units import unit_keys
from recmarket.run.study_plan import cell_dir

MOST_RECORD_BYTES = 64 * 2**20  # a pilot record lists its units: far below this


def write_pilot(out: Path, plan: PilotPlan) -> None:
    """Record the pilot in the reproduce directory (replaced whole)."""
    write_text_whole(out / PILOT, json.dumps(asdict(plan), indent=1))


def read_pilot(out: Path) -> PilotPlan | None:
    """The directory's pilot, or None where it has none; a record that is not one (too
    large, unreadable, of the wrong shape, or with a pilot file's settings that no pilot
    file holds) is refused in one line."""
    path = out / PILOT
    if not path.is_file():
        return None
    try:
        if path.stat().st_size > MOST_RECORD_BYTES:
            raise ValueError(f"larger than {MOST_RECORD_BYTES:,} bytes")
        plan = _RECORD.validate_json(path.read_bytes())
        PilotFile.model_validate(plan.settings)
        return plan
    except (ValueError, OSError) as exc:  # a ValidationError is a ValueError
        problem = str(exc)
        if isinstance(exc, ValidationError):
            first = exc.errors()[0]
            problem = f"{'.'.join(map(str, first['loc']))}: {first['msg']}"
        raise ConfigError(f"{path}: not a pilot record ({problem})") from None


def check_recorded(plan: PilotPlan, cell: PilotCell, study: RunConfig, where: Path) -> None:
    """Refuse a recorded cell whose directories or units are not what its pilot makes of
    the study's cell: a hand-edited record could make the surrogate's own run be read as
    the pilot, or read units the study does not have."""
    pilot = PilotFile.model_validate(plan.settings)
    own = pilot_config(study, pilot, Path(plan.file))
    replays = replay_configs(study, pilot.pilot.surrogate_replays, pilot.pilot.exact_choices)
    noise = noise_configs(own, pilot.pilot.noise_replays) if cell.noise_dirs else []
    made = {
        "study directory": [str(cell_dir(study.condition, study.digest()))],
        "pilot directory": [str(cell_dir(own.condition, own.digest()))],
        "replay directories": [str(cell_dir(cfg.condition, cfg.digest())) for cfg in replays],
        "noise replay directories": [str(cell_dir(cfg.condition, cfg.digest())) for cfg in noise],
    }
    recorded = {
        "study directory": [cell.study_dir],
        "pilot directory": [cell.pilot_dir],
        "replay directories": list(cell.replay_dirs),
        "noise replay directories": list(cell.noise_dirs),
    }
    for what, dirs in made.items():
        if recorded[what] != dirs:
            raise ConfigError(
                f"{where}: cell {cell.cell}: its {what} {', '.join(recorded[what]) or 'none'} "
                f"is not what its pilot makes of the study ({', '.join(dirs)}); the record was "
                "edited: a new pilot needs a new --out"
            )
    keys = unit_keys(cell.unit, study.episodes.requests, study.episodes.users_per_profile)
    known = None if cell.unit == "request" else {str(k) for k in keys}
    for domain, chosen in [*cell.chosen.items(), *cell.noise_chosen.items()]:
        strange = [k for k in chosen if not (k.isdigit() if known is None else k in known)]
        if domain not in study.domains or strange:
            what = f"domain {domain}" if domain not in study.domains else f"unit {strange[0]}"
            raise ConfigError(
                f"{where}: cell {cell.cell}: its pilot chose {what}, which the study does not "
                "have; the record was edited: a new pilot needs a new --out"
            )
    for domain, chances in cell.inclusion.items():
        drawn = set(cell.chosen.get(domain, []))
        odd = [k for k, p in chances.items() if not 0 < p <= 1 or k not in drawn]
        if set(chances) != drawn or odd:
            what = f"unit {odd[0]}" if odd else f"{len(drawn ^ set(chances))} unit(s)"
            raise ConfigError(
                f"{where}: cell {cell.cell}: domain {domain}: {what} without a chance in "
                "(0, 1] of a chosen unit; the record was edited: a new pilot needs a new --out"
            )


_RECORD = TypeAdapter(PilotPlan)
