"""recmarket run and show: the JSON contract, config files, flags, clear errors."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from recmarket.cli import app
from tests.fixtures import lock_held_elsewhere

runner = CliRunner()
BASE = ["run", "--domain", "Sports_and_Outdoors", "--requests", "24"]


def invoke(*args: str):
    return runner.invoke(app, list(args))


def test_json_output_has_the_documented_shape(tmp_path: Path) -> None:
    result = invoke(*BASE, "--condition", "no-rep", "--out", str(tmp_path / "r"), "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert set(data) >= {"run_dir", "config", "domains", "macro"}
    assert data["config"]["condition"] == "no-rep"
    m = data["macro"]
    for key in (
        "episodes",
        "target_present",
        "target_shortlisted",
        "target_top1",
        "target_purchased",
        "purchase_rate",
        "no_purchase_rate",
        "top1_share_by_policy",
        "forced_inclusion_rate",
    ):
        assert key in m
    assert m["episodes"] == 24
    assert abs(sum(m["top1_share_by_policy"].values()) - 1) < 1e-9
    assert data["domains"]["Sports_and_Outdoors"]["episodes"] == 24
    ranks = data["target_fit_rank"]  # episodes by the target's place by fit, "none": not pooled
    assert sum(ranks.values()) == 24
    assert ranks.get("1", 0) / 24 == m["target_best_fit"]
    present = 24 - ranks.get("none", 0)
    assert present / 24 == m["target_present"]
    measured = data["measures"]  # every registered market measure, with its interval
    assert measured["target_purchase"]["estimate"] == pytest.approx(m["target_purchased"], abs=1e-4)
    for name in ("hhi_top1", "exposure_gini", "exaggeration_top1"):
        low, value, high = (measured[name][k] for k in ("low", "estimate", "high"))
        assert low <= value <= high


def test_json_output_of_a_dynamic_market_has_its_blocks(tmp_path: Path) -> None:
    config = tmp_path / "dynamic.toml"
    config.write_text('[market]\nplatform_strategy = "adaptive"\nentrants = ["strict@12"]\n')
    result = invoke(*BASE, "--config", str(config), "--json", "--out", str(tmp_path / "r"))
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    mix, entrant = data["policy_mix_by_block"], data["entrant_top1_by_block"]
    assert [b["rounds"] for b in mix] == [f"{2 * i + 1}-{2 * i + 2}" for i in range(12)]
    assert all(sum(b["shares"].values()) == pytest.approx(1) for b in mix)
    assert [b["shares"]["P7"] for b in entrant[:6]] == [0.0] * 6  # before it enters
    plain = invoke(*BASE, "--json", "--out", str(tmp_path / "p"))
    assert "policy_mix_by_block" not in json.loads(plain.stdout)


def test_table_output_and_show(tmp_path: Path) -> None:
    out = tmp_path / "r"
    result = invoke(*BASE, "--out", str(out))
    assert result.exit_code == 0, result.output
    assert "target purchase" in result.stdout and "macro" in result.stdout
    shown = invoke("show", str(out), "--episode", "Sports_and_Outdoors:3")
    assert shown.exit_code == 0, shown.output
    lines = shown.stdout.splitlines()
    assert lines[1].startswith("Outcome: Bought") or lines[1].startswith("Outcome: No purchase")
    assert lines[2].startswith("Target: ")
    text = shown.stdout
    order = [
        text.index(part) for part in ("Request:", "Need:", "Pool:", "Shortlist 1:", "Decision:")
    ]
    assert order == sorted(order)
    raw = invoke("show", str(out), "--episode", "Sports_and_Outdoors:3", "--json")
    document = json.loads(raw.stdout)
    roles = [c["role"] for c in document["calls"]]
    assert roles[:3] == ["query", "need", "explain"] and "shortlist" in roles
    assert document["episode"]["ord"] == 3 and "query_text" in document["calls"][0]["output"]
    missing = invoke("show", str(out), "--episode", "nope")
    assert missing.exit_code == 2 and "no episode 'nope'" in missing.stderr


def test_config_file_sets_values_and_flags_override_it(tmp_path: Path) -> None:
    toml = tmp_path / "cell.toml"
    toml.write_text(
        'condition = "no-rep"\nseed = 5\n[market]\nn_platforms = 4\n'
        'composition = "strict=2,exaggeration=2"\n'
    )
    result = invoke(
        *BASE, "--config", str(toml), "--seed", "6", "--out", str(tmp_path / "a"), "--json"
    )
    assert result.exit_code == 0, result.output
    config = json.loads(result.stdout)["config"]
    assert config["seed"] == 6 and config["condition"] == "no-rep"
    assert config["market"]["n_platforms"] == 4
    yaml_file = tmp_path / "cell.yaml"
    yaml_file.write_text("market:\n  n_platforms: 4\n  shortlist_k: 2\n")
    result = invoke(*BASE, "--config", str(yaml_file), "--out", str(tmp_path / "b"), "--json")
    assert json.loads(result.stdout)["config"]["market"]["shortlist_k"] == 2


@pytest.mark.parametrize(
    ("content", "suffix", "message"),
    [
        ("[market]\nplatforms = 6\n", ".toml", "market.platforms in"),
        ("[market]\nrho = 2\n", ".toml", "market.rho in"),
        ("market: [1, 2\n", ".yaml", "invalid YAML"),
        ("condition = 'nope'\n", ".toml", "condition in"),
    ],
)
def test_bad_config_files_are_named_with_the_key(
    tmp_path: Path, content: str, suffix: str, message: str
) -> None:
    path = tmp_path / f"bad{suffix}"
    path.write_text(content)
    result = invoke(*BASE, "--config", str(path), "--out", str(tmp_path / "r"))
    assert result.exit_code == 2
    assert message in " ".join(result.stderr.split())
    assert str(path) in " ".join(result.stderr.split())


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--k", "9"], "--k: K=9 cannot exceed the number of platforms N=6"),
        (["--policies", "strict=2,hype=4"], "--policies: unknown policy name 'hype'"),
        (["--policies", "strict=2,exaggeration=2"], "assigns 4 platforms but the market has 6"),
        (
            ["--condition", "rep"],
            "--condition: unknown condition name 'rep'; known: platform-centric",
        ),
        (["--p-hit", "1.5"], "--p-hit: Input should be less than or equal to 1"),
        (["--entrants", "strict@200,loud@3"], "--entrants: unknown policy name 'loud'"),
        (["--entrants", "strict"], "--entrants: entrant 'strict' is not POLICY@ROUNDS"),
        (["--claim-intensity", "0"], "--claim-intensity: claim intensities must be"),
        (["--claim-intensity", "0.5", "--claim-intensity", "1"], "several intensities"),
        (["--reward", "money"], "--reward: Input should be 'top1', 'purchase' or 'mix'"),
        (  # a variant's parameter is checked with its variant, and named by its own flag
            ["--reputation-decay", "0.5"],
            "--reputation-decay: reputation mechanism 'window': params.rate: Extra inputs",
        ),
        (
            ["--reputation-mechanism", "decay", "--reputation-decay", "1.5"],
            "--reputation-decay: reputation mechanism 'decay': params.rate: Input should be less",
        ),
        (
            ["--platform-strategy", "adaptive", "--condition", "platform-centric"],
            "platform-centric has none",
        ),
    ],
)
def test_bad_flags_name_the_flag(tmp_path: Path, flags: list[str], message: str) -> None:
    result = invoke(*BASE, *flags, "--out", str(tmp_path / "r"))
    assert result.exit_code == 2, result.output
    assert message in " ".join(result.stderr.split())


def test_restart_with_other_settings_is_refused(tmp_path: Path) -> None:
    out = str(tmp_path / "r")
    assert invoke(*BASE, "--out", out).exit_code == 0
    result = invoke(*BASE, "--out", out, "--rho", "0.5")
    assert result.exit_code == 2
    assert "market.rho: 0.1 -> 0.5" in result.stderr


def test_estimate_counts_calls_per_role_without_spending(tmp_path: Path) -> None:
    config = tmp_path / "llm.toml"
    config.write_text("""
[llm.models.judge]
name = "judge-model"
api_key_env = "NOT_SET_ANYWHERE"
input_price = 1.0
output_price = 2.0
[llm.roles]
evaluation = "judge"
""")
    result = invoke(
        "estimate", "--config", str(config), "--domain", "Video_Games", "--requests", "120"
    )
    assert result.exit_code == 0, result.output
    lines = {
        line.split("│")[1].strip(): line
        for line in result.stdout.splitlines()
        if line.count("│") > 5
    }
    assert "judge-model" in lines["shortlist"] and "offline" in lines["query"]
    assert " 120 " in lines["shortlist"] and " 720 " in lines["explain"]
    assert "total (LLM)" in lines


def test_llm_flags_are_checked(tmp_path: Path) -> None:
    result = invoke(*BASE, "--backend", "llm", "--out", str(tmp_path / "r"))
    assert result.exit_code == 2 and "--backend llm needs --llm-model" in result.stderr
    result = invoke(*BASE, "--llm-model", "x", "--out", str(tmp_path / "r"))
    assert result.exit_code == 2 and "--llm-model needs --backend llm" in result.stderr


def test_a_second_writer_is_refused_in_one_line_and_readers_do_not_wait(tmp_path: Path) -> None:
    out = tmp_path / "r"
    assert invoke(*BASE, "--out", str(out)).exit_code == 0
    with lock_held_elsewhere(out) as pid:
        refused = invoke(*BASE, "--requests", "30", "--out", str(out))
        assert refused.exit_code == 2
        assert f"in use by another recmarket process (pid {pid})" in refused.output
        assert "Traceback" not in refused.output
        shown = invoke("show", str(out))  # readers never take the lock
        assert shown.exit_code == 0, shown.output
