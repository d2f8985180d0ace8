"""The benchmark's searches: one per searchable family and defence, cut by --scale, played
together round by round yet finding what each finds alone, and nothing searched for a study
that asks no search."""

from pathlib import Path

import pytest

from recmarket.experiments.spec import ExperimentSpec, SpecSearch, load_spec
from recmarket.run.executor import LocalExecutor
from recmarket.study.attack_cells import Benchmark
from recmarket.study.attack_search import Search, run_searches, search
from recmarket.study.benchmark_search import SEARCHES, search_study, spec_searches

SCALE = 0.04  # the benchmark's 300 requests cut to its floor of 12 a domain


def test_the_benchmark_searches_every_family_under_every_defence(tmp_path: Path) -> None:
    spec = load_spec("reputation-benchmark")
    assert spec.search is not None
    found = spec_searches(spec, tmp_path, 0.05, {})
    defences = [entry["name"] for entry in spec.axes["defence"]]
    assert len(found) == len(spec.search.searched()) * len(defences)
    first = found[0]
    assert first.out == tmp_path / SEARCHES / first.attack / first.defence
    assert first.cells == tmp_path  # the study's own cells: the menu trial is the benchmark's
    assert (spec.search.trials(0.05), spec.search.trials(0.25), spec.search.trials(1.0)) == (
        1,
        4,
        spec.search.budget,
    )


def test_a_search_names_its_families_and_needs_menu_cells_and_defences() -> None:
    with pytest.raises(ValueError, match="no search space for it; searchable: forge"):
        SpecSearch(budget=2, families=("inject",))
    base = {"name": "x", "description": "x", "requests": 12, "search": {"budget": 2}}
    with pytest.raises(ValueError, match=r"needs the named defences of an axes\.defence"):
        ExperimentSpec.model_validate({**base, "cells": [{"name": "honest"}]})
    defence = {"defence": [{"name": "no-rep", "settings": {"condition": "no-rep"}}]}
    with pytest.raises(ValueError, match="no menu cell forge@1, flood@1"):
        ExperimentSpec.model_validate({**base, "cells": [{"name": "honest"}], "axes": defence})


def test_a_study_asking_no_search_searches_nothing(tmp_path: Path) -> None:
    assert search_study(["market-expansion"], tmp_path, scale=0.05, overrides={}, workers=1) == 0
    assert not (tmp_path / SEARCHES).exists()


@pytest.mark.slow  # four small searches of the benchmark's market: about two minutes
def test_searches_played_together_find_what_each_finds_alone(tmp_path: Path) -> None:
    defences = ("shared-window", "no-rep")
    together = run_searches(
        [
            Search("forge", Benchmark(d, SCALE), tmp_path / "together" / d, tmp_path / "together")
            for d in defences
        ],
        2,
        LocalExecutor(),
    )
    for defence, found in zip(defences, together, strict=True):
        alone = search("forge", defence, 2, SCALE, tmp_path / defence, LocalExecutor())
        assert found.trials == alone.trials
        assert found.worst == alone.worst
