"""The registry of named variants: built-ins by name, plugins by entry point, loud failures."""

import re
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from pydantic import BaseModel, ConfigDict, Field

from recmarket.catalogue.mechanisms import MECHANISMS
from recmarket.catalogue.registry import NoParams, PluginError, Registry, UnknownName
from tests.plugins import dist_info


@dataclass(frozen=True)
class Thing:
    name: str
    Params: type[BaseModel] = NoParams


def registry(group: str = "recmarket.tests.things") -> Registry[Thing]:
    return Registry("thing", group, Thing, lambda t: t.name)


@pytest.fixture
def plugin_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A directory on sys.path holding a module ``things_plugin`` with variants."""
    (tmp_path / "things_plugin.py").write_text(
        "from tests.catalogue.test_registry import Thing\n"
        "from tests.catalogue.test_registry import Loose\n"
        "EXTRA = Thing('extra')\nMISNAMED = Thing('other')\nNOT_A_THING = 'extra'\n"
        "LOOSE = Thing('extra', Params=Loose)\n"
    )
    (tmp_path / "broken_plugin.py").write_text("raise ImportError('no such dependency')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in ("things_plugin", "broken_plugin"):
        sys.modules.pop(name, None)
    return tmp_path


def test_built_in_variants_are_found_by_name_and_unknown_names_list_the_known() -> None:
    things = registry()
    one = things.register(Thing("one"))
    assert things.get("one") is one and "one" in things and "two" not in things
    with pytest.raises(UnknownName, match=r"unknown thing name 'two'; known: one"):
        things.get("two")
    assert isinstance(UnknownName("x"), ValueError)  # settings validation reports it as such


def test_a_name_cannot_be_taken_twice_nor_by_another_kind_of_object() -> None:
    things = registry()
    things.register(Thing("one"))
    things.register(Thing("one"))  # the same variant again is harmless
    with pytest.raises(TypeError, match="must be a Thing"):
        things.register("one")  # type: ignore[arg-type]

    @dataclass(frozen=True)
    class Other(Thing):
        extra: int = 1

    with pytest.raises(ValueError, match="'one' is registered already"):
        things.register(Other("one"))


class Loose(BaseModel):
    """Parameters that would take a misspelt name silently."""

    level: float = 0.5


def test_a_variant_whose_parameters_take_unknown_fields_or_no_model_is_refused() -> None:
    things = registry()
    with pytest.raises(TypeError, match="thing 'loose': its Params model Loose must forbid"):
        things.register(Thing("loose", Params=Loose))
    with pytest.raises(TypeError, match="thing 'bare': its Params must be a pydantic model"):
        things.register(Thing("bare", Params=dict))  # type: ignore[arg-type]


def test_installed_packages_add_variants_through_their_entry_point_group(
    plugin_path: Path,
) -> None:
    dist_info(
        plugin_path, "things-plugin", {"recmarket.tests.things": {"extra": "things_plugin:EXTRA"}}
    )
    things = registry()
    things.register(Thing("one"))
    assert things.get("extra").name == "extra"
    assert things.names() == ("one", "extra")  # built-ins first
    assert [t.name for t in things] == ["one", "extra"]


def test_a_renamed_group_still_reads_its_older_name_with_a_deprecation_warning(
    plugin_path: Path,
) -> None:
    dist_info(
        plugin_path, "things-plugin", {"recmarket.tests.old": {"extra": "things_plugin:EXTRA"}}
    )
    things = Registry(
        "thing", "recmarket.tests.things", Thing, lambda t: t.name, aliases=("recmarket.tests.old",)
    )
    with pytest.warns(DeprecationWarning, match="'recmarket.tests.old', the older name of"):
        assert things.get("extra").name == "extra"


class Level(BaseModel):
    model_config = ConfigDict(extra="forbid")
    level: float = Field(0.5, ge=0, le=1)


@dataclass(frozen=True)
class Tuned:
    name: str
    Params: type[BaseModel] = Level


def test_parameters_are_validated_by_the_variants_model_and_probed_naming_it() -> None:
    def probe(item: Tuned, params: BaseModel) -> None:
        if params.level == 1:  # type: ignore[attr-defined]
            raise ValueError("level 1 breaks it")

    tuned = Registry("tuned thing", "recmarket.tests.tuned", Tuned, lambda t: t.name, probe)
    tuned.register(Tuned("dial"))
    assert tuned.params("dial", {"level": 0.2}).level == 0.2  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match=r"tuned thing 'dial': params.level: Input should be"):
        tuned.params("dial", {"level": 2})
    with pytest.raises(ValueError, match=r"params.colour: Extra inputs"):
        tuned.params("dial", {"colour": "red"})
    with pytest.raises(PluginError, match="tuned thing 'dial' fails its check: level 1 breaks"):
        tuned.params("dial", {"level": 1})
    assert MECHANISMS.origin("decay") is None  # recmarket's own: its settings say it all
    outside = tuned.origin("dial")  # defined in this test module, outside recmarket
    assert outside is not None and len(outside.digest) == 64


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("things_plugin:MISNAMED", "gives the thing 'other'; the two names must agree"),
        ("things_plugin:NOT_A_THING", r"\(things_plugin:NOT_A_THING\) is not a Thing"),
        ("things_plugin:LOOSE", r"\(things_plugin:LOOSE\): its Params model Loose must forbid"),
        ("broken_plugin:X", "cannot load entry point 'extra'.*ImportError: no such dependency"),
    ],
)
def test_a_plugin_that_gives_no_usable_variant_fails_naming_its_entry_point(
    plugin_path: Path, target: str, message: str
) -> None:
    dist_info(plugin_path, "things-plugin", {"recmarket.tests.things": {"extra": target}})
    with pytest.raises(PluginError, match=message):
        registry().get("extra")


def test_a_plugin_cannot_replace_a_built_in(plugin_path: Path) -> None:
    (plugin_path / "things_plugin.py").write_text(
        "from tests.catalogue.test_registry import Thing\nONE = Thing('one')\n"
    )
    dist_info(
        plugin_path, "things-plugin", {"recmarket.tests.things": {"one": "things_plugin:ONE"}}
    )

    @dataclass(frozen=True)
    class Own(Thing):
        pass

    things = registry()
    own = things.register(Own("one"))
    assert things.names() == ("one",)
    assert things.get("one") is own  # the built-in wins, after discovery too
    with pytest.raises(UnknownName) as typo:
        things.get("onw")
    assert str(typo.value) == "unknown thing name 'onw'; known: one"  # no squatter in it


def test_a_broken_plugin_is_named_when_asked_for_and_hides_neither_the_others_nor_a_typo(
    plugin_path: Path,
) -> None:
    dist_info(
        plugin_path,
        "things-plugin",
        {"recmarket.tests.things": {"boom": "broken_plugin:X", "extra": "things_plugin:EXTRA"}},
    )
    things = registry()
    things.register(Thing("one"))
    assert things.get("extra").name == "extra"  # loaded after the broken one, in name order
    assert things.names() == ("one", "extra") and "boom" not in things
    with pytest.raises(UnknownName, match=r"'bogus'; known: one, extra; installed but not loa"):
        things.get("bogus")
    with pytest.raises(PluginError, match=r"cannot load entry point 'boom'.*no such dependency"):
        things.get("boom")


class Counts(BaseModel):
    model_config = ConfigDict(extra="forbid")
    newcomer_low: int = 0
    rate: float = 0.5
    weights: list[float] = []
    strict: bool = False


@dataclass(frozen=True)
class Counted:
    name: str
    Params: type[BaseModel] = Counts


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ({"rate": float("nan")}, "params.rate: nan is not a finite number"),
        ({"rate": float("inf")}, "params.rate: inf is not a finite number"),
        ({"weights": [1.0, float("-inf")]}, "params.weights: -inf is not a finite number"),
        ({"newcomer_low": True}, "params.newcomer_low: true is a boolean, not a number"),
        ({"rate": False}, "params.rate: false is a boolean, not a number"),
    ],
)
def test_parameters_refuse_non_finite_numbers_and_booleans_for_numbers(
    given: dict, said: str
) -> None:
    counted = Registry("counted thing", "recmarket.tests.counted", Counted, lambda c: c.name)
    counted.register(Counted("tally"))
    with pytest.raises(ValueError, match=f"counted thing 'tally': {re.escape(said)}"):
        counted.params("tally", given)
    assert counted.params("tally", {"strict": True, "newcomer_low": 2}).strict is True


def test_a_plugins_recorded_code_covers_every_file_it_ships(plugin_path: Path) -> None:
    """A package's data file, and a sibling module its distribution ships beside it: an
    edit of either changes what a run records, so a resume is refused; a file its RECORD
    lists that cannot be read refuses the plugin, naming the file."""
    package = plugin_path / "weighted_plugin"
    package.mkdir()
    (package / "__init__.py").write_text(
        "from tests.catalogue.test_registry import Thing\nWEIGHTED = Thing('weighted')\n"
    )
    (package / "weights.json").write_text("[1, 2]")
    (plugin_path / "flat_plugin.py").write_text(
        "import flat_helper\nfrom tests.catalogue.test_registry import Thing\n"
        "FLAT = Thing('flat')\n"
    )
    (plugin_path / "flat_helper.py").write_text("SCALE = 1\n")
    dist_info(
        plugin_path,
        "weighted-plugin",
        {"recmarket.tests.things": {"weighted": "weighted_plugin:WEIGHTED"}},
    )
    dist_info(
        plugin_path,
        "flat-plugin",
        {"recmarket.tests.things": {"flat": "flat_plugin:FLAT"}},
        record=("flat_plugin.py", "flat_helper.py"),
    )
    things = registry()
    before = {name: things.origin(name) for name in ("weighted", "flat")}
    assert before["flat"] is not None and before["flat"].distribution == "flat-plugin"
    (package / "weights.json").write_text("[1, 3]")
    (plugin_path / "flat_helper.py").write_text("SCALE = 2\n")
    for name in ("weighted", "flat"):
        assert things.origin(name).digest != before[name].digest, name  # type: ignore[union-attr]
    (plugin_path / "flat_helper.py").unlink()
    with pytest.raises(
        PluginError, match=r"thing 'flat' from flat-plugin: cannot read .*flat_helper"
    ):
        things.origin("flat")


def test_a_built_in_that_cannot_take_its_parameters_blames_them_not_itself(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from recmarket.catalogue.attacks import ATTACKS

    with pytest.raises(ValueError, match=r"params.window: Input should be less than or equal"):
        ATTACKS.params("whitewash", {"window": 10**30})  # once a C size overflow in its probe

    def overflows(item: object, params: BaseModel) -> None:
        raise OverflowError("Python int too large to convert to C ssize_t")

    monkeypatch.setattr(ATTACKS, "probe", overflows)
    with pytest.raises(ValueError) as refused:
        ATTACKS.params("whitewash", {})
    assert not isinstance(refused.value, PluginError)
    assert str(refused.value) == (
        "attack 'whitewash': these parameters cannot be used "
        "(Python int too large to convert to C ssize_t)"
    )
