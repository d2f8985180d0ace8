"""Help as a user reads it: commands by section in workflow order, every text as written,
every choice listed."""

import re

import pytest
from typer.testing import CliRunner

from recmarket.catalogue.conditions import CONDITIONS
from recmarket.cli import app
from recmarket.cli.workflow import OTHER, SECTIONS, section_of

runner = CliRunner()


def help_of(*args: str) -> str:
    result = runner.invoke(app, [*args, "--help"], terminal_width=200)
    assert result.exit_code == 0, result.output
    return result.output


def test_every_command_has_a_section() -> None:
    import typer.main

    group = typer.main.get_group(app)
    assert [n for n in group.commands if section_of(n) == OTHER] == []


def test_commands_are_listed_by_section_in_workflow_order() -> None:
    text = help_of()
    headings = [line.rstrip(":") for line in text.splitlines() if line.endswith(":")]
    assert headings[-len(SECTIONS) :] == list(SECTIONS)
    listed = re.findall(r"^  (\S+) ", text.split(f"{next(iter(SECTIONS))}:", 1)[1], re.M)
    assert listed == [name for names in SECTIONS.values() for name in names]


@pytest.mark.parametrize("command", [("run",), ("validate",), ("reproduce",), ("data", "list")])
def test_help_prints_its_texts_as_written(command: tuple[str, ...]) -> None:
    text = help_of(*command)
    assert "<bool>" not in text and "╭" not in text
    if command == ("validate",):
        assert "[agents]" in text and "[llm]" in text  # rich markup once ate these


def test_a_flag_that_names_a_registered_variant_lists_every_name() -> None:
    text = re.sub(r"-\s+", "-", " ".join(help_of("run").split()))  # lines broken at hyphens
    listed = re.search(r"--condition <str> .*?\(one of ([^;]*);", text)
    assert listed is not None
    assert listed.group(1).split(", ") == list(CONDITIONS.names())
    assert "(one of top1, purchase, mix; default: top1)" in text  # not run into the sentence
