"""The study layer: a study's add-ons are its choice (the pilot asked, else the one its specs
name), and the run layer plays any add-on through one interface, in order: its plan, its
record beside the study's plan, the study's and its cells played, then what it asks for
after."""

from pathlib import Path

from recmarket.config import RunConfig
from recmarket.run.addons import AddedCells
from recmarket.run.pilot import PilotAsked
from recmarket.run.pilot_addon import PilotAddOn
from recmarket.run.reproduce import reproduce
from recmarket.run.store import RunStore
from recmarket.run.study_plan import PLAN, PlannedCell, read_plan
from recmarket.run.unit_choice import UnitChoice
from recmarket.study.reproduce import add_ons
from tests.run.test_pilot import NEAR, pilot_file, study


class Beside:
    """An add-on that plays one more offline cell beside the study, and another after it."""

    def __init__(self, out: Path) -> None:
        self.calls: list[str] = []
        self.extra, self.later = str(out / "beside"), str(out / "later")

    def plan(
        self, cells: list[PlannedCell], configs: dict[str, RunConfig], out: Path
    ) -> AddedCells:
        self.calls.append(f"plan {len(cells)} cell(s), {(out / PLAN).exists()}")
        first = next(iter(configs.values()))
        return AddedCells(offline={self.extra: first.model_copy(update={"seed": 99})})

    def record(self, out: Path) -> int:
        self.calls.append(f"record, plan written {(out / PLAN).exists()}")
        return 0

    def allocate(self, configs: dict[str, RunConfig], out: Path) -> dict[str, UnitChoice | None]:
        self.calls.append(f"allocate, beside played {(Path(self.extra) / 'run.sqlite').exists()}")
        return {}

    def after_play(self, configs: dict[str, RunConfig], out: Path) -> dict[str, RunConfig]:
        self.calls.append(f"after, beside played {(Path(self.extra) / 'run.sqlite').exists()}")
        assert self.extra in configs
        return {self.later: configs[self.extra].model_copy(update={"seed": 98})}


def test_the_run_layer_plays_an_add_on_through_its_interface_in_order(tmp_path: Path) -> None:
    spec, out = study(tmp_path, requests=12), tmp_path / "r"
    beside = Beside(out)
    cells = reproduce([str(spec)], out, seeds=1, addons=[beside])
    assert beside.calls == [
        f"plan {len(cells)} cell(s), False",
        "record, plan written True",
        "allocate, beside played True",
        "after, beside played True",
    ]
    with RunStore.read(Path(beside.later)) as store:
        assert store.config().seed == 98 and len(store.episodes()) > 0
    assert len(read_plan(out)) == len(cells)  # the add-on's cells are not the study's


def test_a_study_has_the_pilot_asked_else_the_one_its_specs_name(tmp_path: Path) -> None:
    spec = study(tmp_path, requests=12)
    assert add_ons([str(spec)], None) == []
    path = pilot_file(tmp_path, "[pilot]\n" + NEAR)
    [asked] = add_ons([str(spec)], PilotAsked(path, 0.5, 1))
    assert isinstance(asked, PilotAddOn) and asked.asked.share == 0.5
    named = spec.with_name("named.toml")
    named.write_text(spec.read_text() + f'\n[pilot]\nfile = "{path}"\nshare = 0.25\n')
    [from_spec] = add_ons([str(named)], None)
    assert isinstance(from_spec, PilotAddOn) and from_spec.asked.share == 0.25


def test_the_run_layers_reproduce_knows_no_pilot() -> None:
    """What a study plays beside its cells reaches reproduce as add-ons only: it imports
    nothing of the pilot's and names it nowhere in its code."""
    import ast
    import inspect

    import recmarket.run.reproduce as module

    tree = ast.parse(inspect.getsource(module))
    imported = [node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)]
    assert not [name for name in imported if "pilot" in name]
    names = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    assert not {n for n in names if "pilot" in n.lower()}
