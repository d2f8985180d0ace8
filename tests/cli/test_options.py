"""Command-line options come from the settings models, and options that would be ignored
are refused."""

import json

import pytest
from typer.testing import CliRunner

from recmarket.cli import app
from recmarket.cli.options import RUN, field_of, option

runner = CliRunner()


def flags_of(command: str) -> set[str]:
    text = runner.invoke(app, [command, "--help"], terminal_width=200).stdout
    return {word.strip("│ ,") for word in text.split() if word.strip("│ ,").startswith("--")}


@pytest.mark.parametrize("flag", RUN, ids=lambda f: f.flag)
def test_each_flag_states_its_fields_description_and_default(flag) -> None:
    info = field_of(flag.path, flag.within)
    (parameter_info,) = option(flag).annotation.__metadata__
    help_text = parameter_info.help
    assert info.description and info.description in help_text
    default = info.default
    if isinstance(default, tuple):
        default = default[0] if default else None
    assert "default: " in help_text and str("none" if default is None else default) in help_text


def test_commands_spell_each_setting_the_same_way_and_take_only_what_they_use() -> None:
    settings = {f.flag for f in RUN}
    run, estimate, build = flags_of("run"), flags_of("estimate"), flags_of("build")
    assert settings <= run and settings <= estimate
    assert "--policies" in build and "--composition" not in build
    assert {"--json", "--out", "--executor", "--replay", "--budget"}.isdisjoint(estimate)
    assert {"--condition", "--reputation-scope"}.isdisjoint(build)
    assert {"--n", "--rho", "--p-hit", "--seed"} <= flags_of("access-check")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--replay"], "--replay applies to LLM runs only"),
        (["--budget", "5"], "--budget applies to LLM runs only"),
        (["--executor", "ray", "--backend", "llm", "--llm-model", "m"], "runs the offline"),
        (["--address", "auto"], "--address names a Ray cluster: it needs --executor ray"),
    ],
)
def test_options_that_would_be_ignored_are_refused(args: list[str], message: str) -> None:
    result = runner.invoke(app, ["run", "--requests", "12", *args])
    assert result.exit_code == 2 and message in result.stderr


def test_a_bad_value_names_the_flag_that_set_it() -> None:
    result = runner.invoke(app, ["run", "--rho", "1.5"])
    assert result.exit_code == 2
    assert "--rho: Input should be less than or equal to 1" in result.stderr


def test_an_older_settings_form_is_read_with_a_warning_of_one_line(tmp_path) -> None:
    config = tmp_path / "old.toml"
    config.write_text('domains = ["Video_Games"]\n[market]\nreputation_mechanism = "beta"\n')
    args = ["run", "--config", str(config), "--requests", "6", "--out", str(tmp_path / "r")]
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.stderr
    said = " ".join(result.stderr.split())
    assert said.count("warning:") == 1 and "DeprecationWarning" not in said
    assert "market.reputation_mechanism/reputation_decay is the older form" in said
    assert "write market.reputation = { mechanism" in said
    ran = json.loads(result.stdout)
    assert ran["config"]["market"]["reputation"] == {"params": {}, "mechanism": "beta"}


def test_the_decay_flag_sets_the_decay_mechanisms_rate(tmp_path) -> None:
    flags = ["--reputation-mechanism", "decay", "--reputation-decay", "0.5", "--json"]
    args = ["run", "--domain", "Video_Games", "--requests", "6", "--out", str(tmp_path / "r")]
    result = runner.invoke(app, [*args, *flags])
    assert result.exit_code == 0, result.stderr
    reputation = json.loads(result.stdout)["config"]["market"]["reputation"]
    assert reputation == {"params": {"rate": 0.5}, "mechanism": "decay"}
