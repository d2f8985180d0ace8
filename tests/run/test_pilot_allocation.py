"""A pilot's allocation over its strata: Neyman's sizes (as many units as uniform, spread
by units times the surrogate's spread, floors and caps kept, growing with the budget) and a
small study whose pilot is allocated once its surrogate has played."""

import json
from pathlib import Path

import numpy as np
import pytest

from recmarket.config_file import ConfigError
from recmarket.report.pilot_data import read_piloted
from recmarket.report.ppi_table import ppi_rows
from recmarket.run.pilot import PilotAsked
from recmarket.run.pilot_allocation import ALLOCATIONS, StratumPlays, active_chances, neyman_sizes
from recmarket.run.pilot_file import PilotSettings
from recmarket.run.pilot_record import read_pilot
from recmarket.run.store import RunStore
from recmarket.study import reproduce
from tests.run.test_pilot import NEAR, pilot_file, study

UNITS = {(1, "a"): 40, (1, "b"): 40, (2, "a"): 20, (2, "b"): 40}
SPREADS = {(1, "a"): 0.1, (1, "b"): 0.4, (2, "a"): 0.4, (2, "b"): 0.0}
FLOORS = dict.fromkeys(UNITS, 3)


def test_every_allocation_the_pilot_file_accepts_is_in_the_catalogue() -> None:
    accepted = PilotSettings.model_fields["allocation"].annotation.__args__  # type: ignore[union-attr]
    assert set(accepted) == set(ALLOCATIONS)


def test_neyman_spreads_the_uniform_budget_by_units_times_spread_within_floors_and_caps() -> None:
    sizes = neyman_sizes(UNITS, SPREADS, 40, FLOORS)
    assert abs(sum(sizes.values()) - 40) <= len(UNITS) / 2  # rounding half up, each stratum
    assert sizes[(2, "b")] == 3  # no spread: its floor
    assert sizes[(1, "b")] > sizes[(2, "a")] > sizes[(1, "a")]  # N_h S_h: 16 > 8 > 4
    assert sizes[(1, "b")] == pytest.approx(2 * sizes[(2, "a")], abs=1)
    assert all(FLOORS[h] <= n <= UNITS[h] for h, n in sizes.items())
    capped = neyman_sizes(UNITS, SPREADS, 130, FLOORS)
    assert capped[(1, "b")] == 40 and capped[(2, "a")] == 20  # every unit, no more


def test_neyman_sizes_only_grow_with_the_budget_so_a_grown_pilot_keeps_its_units() -> None:
    previous = dict.fromkeys(UNITS, 0)
    for budget in range(12, 141):
        sizes = neyman_sizes(UNITS, SPREADS, budget, FLOORS)
        assert all(sizes[h] >= previous[h] for h in UNITS), budget
        previous = sizes


def test_strata_the_surrogate_cannot_tell_apart_get_units_in_proportion_to_their_size() -> None:
    sizes = neyman_sizes(UNITS, dict.fromkeys(UNITS, 0.0), 28, dict.fromkeys(UNITS, 2))
    assert sizes == {(1, "a"): 8, (1, "b"): 8, (2, "a"): 4, (2, "b"): 8}


def test_active_chances_rise_with_disagreement_sum_to_the_uniform_size_and_stay_bounded() -> None:
    """Ten units, the first five whose replays agree: they get the least chance, but never
    less than half uniform's, so none weighs more than twice a uniform pilot unit."""
    stratum = StratumPlays(list(range(10)), 4)
    for k in range(10):
        rates = np.zeros(4) if k < 5 else np.array([0.0, 1.0] * 2) * (k - 4)
        stratum.plays[str(k)].append(rates)
    chances, priorities = active_chances(stratum)
    assert sum(chances.values()) == pytest.approx(4)
    assert all(chances[str(k)] < chances[str(k + 1)] for k in range(4, 9))
    assert len({round(chances[str(k)], 12) for k in range(5)}) == 1
    assert min(chances.values()) >= 0.5 * 4 / 10 - 1e-12 and max(chances.values()) <= 1
    assert sum(priorities.values()) == pytest.approx(1)
    alike = StratumPlays(list(range(10)), 4)
    for k in range(10):
        alike.plays[str(k)].append(np.array([0.0, 1.0]))
    assert set(np.round(list(active_chances(alike)[0].values()), 12)) == {0.4}


@pytest.mark.parametrize("allocation", ["neyman", "active"])
def test_a_neyman_pilot_is_chosen_once_the_surrogate_played_and_plays_just_those_units(
    tmp_path: Path, allocation: str
) -> None:
    """Neyman or active: the pilot is drawn once the surrogate played, recorded, and its
    backend plays just those units, the same in every cell of a seed; the report reads
    it (active with every unit's chance), and another allocation would redraw it."""
    spec, out = study(tmp_path, 48), tmp_path / "r"
    path = pilot_file(tmp_path, f'[pilot]\nallocation = "{allocation}"\n' + NEAR)
    reproduce([str(spec)], out, seeds=2, pilot=PilotAsked(path, 0.25, 3))
    plan = read_pilot(out)
    assert plan is not None and plan.allocation == allocation
    recorded = json.loads((out / "pilot.json").read_text())
    assert recorded["settings"]["pilot"]["allocation"] == allocation
    for cell in plan.cells:
        if allocation == "active":
            assert sorted(cell.inclusion["Video_Games"]) == cell.chosen["Video_Games"]
            assert len(cell.chosen["Video_Games"]) == 3  # the uniform size, each stratum
        else:
            assert not cell.inclusion
    sizes = [len(c.chosen["Video_Games"]) for c in plan.cells]
    assert sum(sizes) == pytest.approx(2 * 2 * 3, abs=2)  # 2 cells x 2 seeds x 3 users
    for cell in plan.cells:
        with RunStore.read(out / cell.pilot_dir) as store:
            users = {str(r["sim_user"]) for r in store.iter_episodes()}
        assert users == set(cell.chosen["Video_Games"])
        assert set(cell.noise_chosen["Video_Games"]) <= users
    by_seed: dict[int, set[tuple[str, ...]]] = {}
    for cell in plan.cells:  # every cell of a seed plays the same units: contrasts paired
        with RunStore.read(out / cell.study_dir) as store:
            seed = store.config().seed
        by_seed.setdefault(seed, set()).add(tuple(cell.chosen["Video_Games"]))
    assert len(by_seed) == 2 and all(len(chosen) == 1 for chosen in by_seed.values())
    cells, notes = read_piloted([out])
    assert not notes
    assert all((c.inclusion_of is not None) == (allocation == "active") for c in cells)
    rows = ppi_rows(cells)
    assert rows and all(r["pilot_n"] >= 2 for r in rows)
    assert all(np.isfinite(r["ppi"]) and r["ppi_low"] <= r["ppi_high"] for r in rows)
    uniform = pilot_file(tmp_path, NEAR, "uniform.toml")
    with pytest.raises(ConfigError, match="allocation uniform would redraw it"):
        reproduce([str(spec)], out, seeds=2, pilot=PilotAsked(uniform, 0.25, 3))


def test_an_edited_chance_in_an_active_pilots_record_is_refused(tmp_path: Path) -> None:
    spec, out = study(tmp_path, 24), tmp_path / "r"
    path = pilot_file(tmp_path, '[pilot]\nallocation = "active"\n' + NEAR)
    reproduce([str(spec)], out, seeds=1, pilot=PilotAsked(path, 0.25, 3))
    record = json.loads((out / "pilot.json").read_text())
    chances = record["cells"][0]["inclusion"]["Video_Games"]
    chances[next(iter(chances))] = 1.5
    (out / "pilot.json").write_text(json.dumps(record))
    with pytest.raises(ConfigError, match=r"pilot.json: cell no-rep: domain Video_Games: unit"):
        read_piloted([out])
