"""The benchmark's market as a search plays it: a point's cell and its policy-only twin on
the same schedule, one run a seed."""

from recmarket.catalogue.attack_spaces import SPACES
from recmarket.experiments.spec import load_spec
from recmarket.study.attack_cells import Benchmark, Planned


def test_every_menu_cell_is_paired_with_its_twin_episode_for_episode() -> None:
    """Under no records a memoryless twin is played on two schedules and an adaptive
    attack on one: a trial reads the twin's copy on its own cell's schedule, one a seed."""
    spec = load_spec("reputation-benchmark")
    schedule = spec.schedule(0.05)
    for family in SPACES:
        for entry in spec.axes["defence"]:
            bench = Benchmark(entry["name"], 0.05, spec, {}, schedule)
            planned = Planned.of(bench, bench.menu(family), bench.seeds)
            played = [(c.seed, c.episodes) for c in planned.played]
            assert played == [(c.seed, c.episodes) for c in planned.twin], (family, entry)
            assert len({seed for seed, _ in played}) == len(played)
