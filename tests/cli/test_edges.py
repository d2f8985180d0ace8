"""Edge inputs get one line, CSV cannot carry formulas, and call order is deterministic."""

import asyncio
import errno
import os
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from recmarket.agents.judgement import Judge
from recmarket.agents.rules import offline_agents
from recmarket.agents.rules.params import ScaleParams
from recmarket.cli import app
from recmarket.cli.show import csv_safe
from recmarket.config import EpisodeConfig, MarketConfig
from recmarket.data import BUNDLED_DATA_DIR
from recmarket.data.domain import domain_files, load_domain
from recmarket.data.episodes import sample_requests
from recmarket.embedding.base import StaticEmbedder
from recmarket.market.build import build_market, item_vectors
from recmarket.market.protocol import Round
from tests.plugins import dist_info, recmarket, refused


@pytest.mark.parametrize(
    ("flags", "named"),
    [
        (["--seed", "-1"], "--seed"),
        (["--tau", "1e-300"], "--tau"),
        (["--tau", "inf"], "--tau"),
        (["--tau", "nan"], "--tau"),
    ],
)
def test_absurd_numbers_get_one_line(tmp_path: Path, flags: list[str], named: str) -> None:
    result = CliRunner().invoke(app, ["run", "--requests", "6", "--out", str(tmp_path), *flags])
    assert result.exit_code == 2 and named in result.output
    assert "Traceback" not in result.output


def test_a_config_file_that_is_not_utf8_is_named_with_its_line(tmp_path: Path) -> None:
    bad = tmp_path / "cell.toml"
    bad.write_bytes(b"seed = 1\n# caf\xe9\n")
    result = CliRunner().invoke(app, ["run", "--config", str(bad), "--out", str(tmp_path / "r")])
    assert result.exit_code == 2 and "cell.toml:2: not UTF-8" in result.output


@pytest.mark.parametrize("suffix, text", [(".toml", "a = {}"), (".yaml", "a: {}")])
def test_a_config_nested_past_any_setting_is_one_line(tmp_path: Path, suffix, text) -> None:
    deep = tmp_path / f"deep{suffix}"
    deep.write_text(text.replace("{}", "[" * 50_000 + "]" * 50_000))
    result = CliRunner().invoke(app, ["run", "--config", str(deep), "--out", str(tmp_path / "r")])
    assert result.exit_code == 2
    assert f"deep{suffix}: nested too deeply to be a configuration" in result.output
    assert "Traceback" not in result.output and not (tmp_path / "r").exists()


def test_csv_cells_cannot_start_a_formula() -> None:
    frame = pd.DataFrame({"text": ["=HYPERLINK(1)", "+1", "-x", "@A1", "fine", None]})
    frame["number"] = [-1.5, 2, 3, 4, 5, 6]
    safe = csv_safe(frame)
    assert list(safe["text"][:5]) == ["'=HYPERLINK(1)", "'+1", "'-x", "'@A1", "fine"]
    assert list(safe["number"]) == list(frame["number"])  # numbers keep their sign


def test_concurrent_calls_are_stored_in_the_order_they_were_made() -> None:
    """Explanations that finish in reverse order are still stored platform by platform."""
    domain = load_domain(domain_files(BUNDLED_DATA_DIR, "Video_Games"))
    requests = sample_requests(domain, EpisodeConfig(requests=6), seed=3)
    embedder = StaticEmbedder()
    market = build_market(
        domain, requests, item_vectors(domain, embedder, None), MarketConfig(), seed=3
    )
    agents = offline_agents(embedder)
    explain = agents.explain

    async def slow_first(inp, seed):
        await asyncio.sleep(0.01 * (7 - int(inp.platform_id[1:])))  # P1 finishes last
        return await explain(inp, seed)

    judge = Judge.of(embedder, ScaleParams())
    rnd = Round(market, replace(agents, explain=slow_first), embedder, "no-rep", judge=judge)
    outcome = asyncio.run(rnd.play(requests[0]))
    order = [c.input.platform_id for c in outcome.calls if c.role == "explain"]
    assert order == sorted(order, key=lambda p: int(p[1:]))
    assert len(order) == 6 and all(c.output is not c.input for c in outcome.calls)


def test_markup_in_a_path_prints_as_itself(tmp_path: Path) -> None:
    out = tmp_path / "[/x]run[bold]"
    args = ["run", "--requests", "6", "--domain", "Video_Games", "--out", str(out)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    shown = CliRunner().invoke(app, ["show", str(out)])
    assert shown.exit_code == 0 and "Video_Games/" in shown.output
    missing = CliRunner().invoke(app, ["show", str(tmp_path / "[red]nowhere")])
    assert missing.exit_code == 2 and "[red]nowhere" in missing.output


@pytest.mark.slow  # installs a broken plugin and runs the command in a subprocess
def test_a_plugin_that_raises_at_import_is_one_line_and_hides_nothing_else(
    tmp_path: Path,
) -> None:
    (tmp_path / "boomplug.py").write_text("raise RuntimeError('plugin exploded at import')\n")
    dist_info(tmp_path, "boomplug", {"recmarket.policies": {"boom": "boomplug:X"}})
    paths = (tmp_path,)
    out = str(tmp_path / "run")
    typo = refused(
        "run", "--policies", "strict,bogus,balanced", "--requests", "6", "--out", out, paths=paths
    )
    assert "unknown policy name 'bogus'; known: strict, balanced, exaggeration" in typo
    assert "installed but not loadable: 'boom'" in typo
    broken = refused(
        "run", "--policies", "strict,boom,balanced", "--requests", "6", "--out", out, paths=paths
    )
    assert "cannot load entry point 'boom'" in broken and "plugin exploded at import" in broken
    assert "Traceback" not in typo + broken
    recmarket("run", "--requests", "6", "--domain", "Video_Games", "--out", out, paths=paths)


def test_an_export_the_disk_cannot_hold_names_its_file_and_keeps_the_earlier_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from recmarket.config import RunConfig
    from recmarket.run.runner import run

    cfg = RunConfig.model_validate({"domains": ["Video_Games"], "episodes": {"requests": 6}})
    run(cfg, tmp_path / "r").store.close()
    target = tmp_path / "episodes.csv"
    args = ["export", str(tmp_path / "r"), "--format", "csv", "--out", str(target)]
    assert CliRunner().invoke(app, args).exit_code == 0
    earlier = target.read_bytes()

    def disk_fills(self: pd.DataFrame, path: Path, **_: object) -> None:
        Path(path).write_text("episode_id,half")
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(pd.DataFrame, "to_csv", disk_fills)
    result = CliRunner().invoke(app, args)
    said = " ".join(result.output.split())
    assert result.exit_code == 2 and f"No space left on device: '{target}'" in said
    assert target.read_bytes() == earlier and sorted(os.listdir(tmp_path)) == ["episodes.csv", "r"]
