"""What an attack search may vary: every searchable family's menu cell is a point of its
space, a point places its attack on the benchmark's seats (or one owner's), and a trial's
values stay within each dimension's bounds."""

import optuna
import pytest

from recmarket.catalogue.attack_spaces import ATTACKERS, SEATS_BY_SHARE, SPACES, space_for
from recmarket.catalogue.attacks import ATTACKS
from recmarket.experiments.spec import load_spec

MENU = {
    c.name: c.settings["market"]["attacks"]
    for c in load_spec("reputation-benchmark").cells
    if "attacks" in c.settings.get("market", {})
}


@pytest.mark.parametrize("family", sorted(SPACES))
def test_the_menu_cell_is_a_point_of_its_family_and_plays_alike(family: str) -> None:
    space = SPACES[family]
    menu = MENU[f"{family}@1"]
    point = space.point_of(menu)
    played = space.attacks(point)
    assert set(played) == set(menu)
    for seat, setting in played.items():
        same = ATTACKS.params(family, menu[seat].get("params", {}))
        assert ATTACKS.params(family, setting["params"]) == same


@pytest.mark.parametrize("family", sorted(SPACES))
def test_a_trials_point_stays_in_bounds_and_seats_its_share(family: str) -> None:
    space = SPACES[family]
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=1))
    for _ in range(20):
        point = space.suggest(study.ask())
        for d in space.dimensions:
            if d.choices:
                assert point[d.name] in d.choices
            else:
                assert d.low <= point[d.name] <= d.high
        played = space.attacks(point)
        ATTACKS.params(family, played["P4"]["params"])  # valid parameters of the family
        if space.owner:
            assert set(played) == {"P4"} and played["P4"]["params"]["seats"] == point[ATTACKERS]
        else:
            assert tuple(played) == SEATS_BY_SHARE[point[ATTACKERS]] and "P1" not in played


def test_a_family_without_a_space_is_refused_with_the_searchable_ones() -> None:
    with pytest.raises(
        ValueError, match="--attack inject: no search space for it; searchable: forge"
    ):
        space_for("inject")
