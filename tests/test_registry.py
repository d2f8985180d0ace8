"""The registry of named variants: built-ins by name, plugins by entry point, loud failures."""

import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from recmarket.registry import PluginError, Registry, UnknownName
from tests.plugins import dist_info


@dataclass(frozen=True)
class Thing:
    name: str


def registry(group: str = "recmarket.tests.things") -> Registry[Thing]:
    return Registry("thing", group, Thing, lambda t: t.name)


@pytest.fixture
def plugin_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A directory on sys.path holding a module ``things_plugin`` with variants."""
    (tmp_path / "things_plugin.py").write_text(
        "from tests.test_registry import Thing\n"
        "EXTRA = Thing('extra')\nMISNAMED = Thing('other')\nNOT_A_THING = 'extra'\n"
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


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("things_plugin:MISNAMED", "gives the thing 'other'; the two names must agree"),
        ("things_plugin:NOT_A_THING", r"\(things_plugin:NOT_A_THING\) is not a Thing"),
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
        "from tests.test_registry import Thing\nONE = Thing('one')\n"
    )
    dist_info(
        plugin_path, "things-plugin", {"recmarket.tests.things": {"one": "things_plugin:ONE"}}
    )

    @dataclass(frozen=True)
    class Own(Thing):
        pass

    things = registry()
    things.register(Own("one"))
    with pytest.raises(PluginError, match="names a thing that is registered already"):
        things.names()
