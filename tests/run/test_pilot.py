"""A pilot beside a study: its file, its configurations, its units (the same in every cell,
nested as it grows), its own role draws, and a small study played with one."""

import json
import os
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest

from recmarket.config import RunConfig
from recmarket.config_file import ConfigError
from recmarket.market.asker import RoleAsker
from recmarket.report.pilot_data import read_piloted
from recmarket.report.ppi_table import ppi_rows
from recmarket.run import runner
from recmarket.run.pilot import PilotAsked, plan_pilot
from recmarket.run.pilot_file import PILOT_DRAWS, pilot_config, read_pilot_file, replay_configs
from recmarket.run.pilot_record import read_pilot
from recmarket.run.store import STORE_NAME, RunStore
from recmarket.run.study_plan import plan
from recmarket.sqlite_files import StoreError
from recmarket.streams import Stream, call_seed
from recmarket.study import reproduce
from tests.run.test_resume import command, finished_episodes

NEAR = """
[agents.ranker]
credence = 0.7
[agents.decision.profiles.transactional_direct]
fit = 5.0
"""


def study(tmp_path: Path, requests: int = 24) -> Path:
    """NoRep and LocalRep on one domain: the accountability study's shape, small."""
    spec = tmp_path / "small.toml"
    spec.write_text(f"""
name = "small"
description = "NoRep and LocalRep, one domain"
requests = {requests}
[base]
domains = ["Video_Games"]
[[cells]]
name = "no-rep"
settings = {{ condition = "no-rep" }}
[[cells]]
name = "local-rep"
settings = {{ condition = "local-rep" }}
""")
    return spec


FLOOR = "min_units_per_stratum = 2\n"  # what resampling needs: the shares alone decide


def pilot_file(
    tmp_path: Path, text: str = NEAR, name: str = "pilot.toml", floor: bool = True
) -> Path:
    """A pilot file of ``text``; with ``floor``, strata of two pilot units are enough
    unless the text says otherwise, so that these tiny studies' pilots play their shares
    (the default floor of 8 has tests of its own)."""
    if floor and "min_units_per_stratum" not in text:
        text = (
            text.replace("[pilot]\n", "[pilot]\n" + FLOOR)
            if "[pilot]\n" in text
            else ("[pilot]\n" + FLOOR + text)
        )
    path = tmp_path / name
    path.write_text(text)
    return path


def test_a_pilot_file_holds_only_the_backend_and_pilot_tables(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"market in .*bad\.toml"):
        read_pilot_file(pilot_file(tmp_path, "[market]\nrho = 0.5\n", "bad.toml"))
    with pytest.raises(ConfigError, match=r"pilot\.surrogate_replays in .*few\.toml"):
        read_pilot_file(pilot_file(tmp_path, "[pilot]\nsurrogate_replays = 0\n", "few.toml"))
    with pytest.raises(ConfigError, match=r"agents\.ranker\.credence in .*range\.toml"):
        pilot_config(
            RunConfig(),
            read_pilot_file(pilot_file(tmp_path, "[agents.ranker]\ncredence = 7\n", "range.toml")),
            tmp_path / "range.toml",
        )


def test_a_pilot_identical_to_the_surrogate_is_the_study_cell_and_others_are_not(
    tmp_path: Path,
) -> None:
    cfg = RunConfig(condition="local-rep")
    same = read_pilot_file(pilot_file(tmp_path, '[pilot]\ndraws = "shared"\n', "same.toml"))
    assert pilot_config(cfg, same, tmp_path).digest() == cfg.digest()
    own = pilot_config(cfg, read_pilot_file(pilot_file(tmp_path)), tmp_path)
    assert own.draws == PILOT_DRAWS and own.agents.ranker.credence == 0.7
    assert own.agents.decision == cfg.agents.decision.model_copy(
        update={"profiles": own.agents.decision.profiles}
    )
    assert [r.draws for r in replay_configs(cfg, 4, True)] == [1, 2, 3]
    assert len({r.digest() for r in replay_configs(cfg, 4, True)} | {cfg.digest()}) == 4
    assert all(r.record_choices for r in replay_configs(cfg, 4, True))
    assert not any(r.record_choices for r in replay_configs(cfg, 4, False))


def test_another_set_of_draws_changes_every_role_seed_and_keeps_the_runs_own() -> None:
    def seed(draws: int) -> int:
        asker = RoleAsker(None, 42, "Video_Games", 7, [], draws)  # type: ignore[arg-type]
        key = (asker.episode_key, 3, -draws) if draws else (asker.episode_key, 3)
        return call_seed(asker.seed, asker.domain, Stream.DECIDE, *key)

    assert seed(0) == call_seed(42, "Video_Games", Stream.DECIDE, 7, 3)
    assert len({seed(0), seed(1), seed(2), seed(PILOT_DRAWS)}) == 4


def test_every_cell_draws_the_same_units_and_a_larger_share_keeps_a_smaller_ones(
    tmp_path: Path,
) -> None:
    spec, out = study(tmp_path), tmp_path / "r"
    cells, configs = plan([str(spec)], out, seeds=2)
    path = pilot_file(tmp_path)
    small, _, _ = plan_pilot(cells, configs, out, path, 0.1, 5)
    large, replays, played = plan_pilot(cells, configs, out, path, 0.4, 5)
    other, _, _ = plan_pilot(cells, configs, out, path, 0.1, 6)
    by_seed = {}
    for c in large.cells:
        assert c.unit == "user"  # LocalRep's unit, for NoRep too: contrasts stay paired
        by_seed.setdefault(configs[str(out / c.study_dir)].seed, set()).add(
            tuple(c.chosen["Video_Games"])
        )
    assert all(len(chosen) == 1 for chosen in by_seed.values())  # one choice per seed
    assert len({next(iter(c)) for c in by_seed.values()}) == 2  # seeds draw apart
    for s, b in zip(small.cells, large.cells, strict=True):
        assert set(s.chosen["Video_Games"]) < set(b.chosen["Video_Games"])
        assert len(s.chosen["Video_Games"]) == 2 and len(b.chosen["Video_Games"]) == 5
    assert [c.chosen for c in other.cells] != [c.chosen for c in small.cells]
    assert len(replays) == 4 * 3  # R - 1 replays of each of 4 cells
    # each cell's pilot and its 2 noise replays (an offline pilot draws: expected estimand)
    assert len(played) == 4 * 3 and large.estimand == "expected"
    for c in large.cells:
        noise, chosen = set(c.noise_chosen["Video_Games"]), set(c.chosen["Video_Games"])
        assert len(c.noise_dirs) == 2 and noise < chosen and len(noise) == 3  # half, nested
    every = pilot_file(tmp_path, "[pilot]\nnoise_share = 1.0\n" + NEAR, "every.toml")
    replayed, _, _ = plan_pilot(cells, configs, out, every, 0.4, 5)
    assert all(c.noise_chosen == c.chosen for c in replayed.cells)  # noise_share: all of it


def test_where_a_whole_domain_is_the_unit_a_share_of_its_seeds_is_played(tmp_path: Path) -> None:
    """A shared scope couples a domain's every user: the pilot plays whole (seed, domain)
    units, a nested share of the seeds (at least two), and the others not at all."""
    spec, out = tmp_path / "shared.toml", tmp_path / "r"
    spec.write_text(
        'name = "shared"\ndescription = "one shared memory"\nrequests = 12\n'
        '[base]\ndomains = ["Video_Games"]\n[[cells]]\nname = "shared"\n'
        'settings = { condition = "local-rep", reputation_scope = "shared" }\n'
    )
    cells, configs = plan([str(spec)], out, seeds=8)
    path = pilot_file(tmp_path)

    def drawn(share: float) -> set[int]:
        found, _, played = plan_pilot(cells, configs, out, path, share, 3)
        assert {c.unit for c in found.cells} == {"domain"}
        chosen = {
            configs[str(out / c.study_dir)].seed for c in found.cells if c.chosen["Video_Games"]
        }
        pilots = [cfg for cfg in played.values() if cfg.draws == PILOT_DRAWS]
        assert len(pilots) == len(chosen)  # a seed not drawn plays nothing
        return chosen

    small, large = drawn(0.1), drawn(0.5)
    assert len(small) == 2 and len(large) == 4 and small < large


def test_a_pilot_plays_enough_units_that_pooled_they_reach_its_minimum(tmp_path: Path) -> None:
    """At the default minimum of 8 units a stratum, a pilot of 0.1 over two seeds still
    plays 4 units a seed (8 pooled, where 0.1 alone gives 2), and the draws still nest."""
    spec, out = study(tmp_path), tmp_path / "r"
    cells, configs = plan([str(spec)], out, seeds=2)
    path = pilot_file(tmp_path, floor=False)
    small, _, _ = plan_pilot(cells, configs, out, path, 0.1, 5)
    large, _, _ = plan_pilot(cells, configs, out, path, 0.4, 5)
    assert small.least == 8
    for s, b in zip(small.cells, large.cells, strict=True):
        assert len(s.chosen["Video_Games"]) == 4 and len(b.chosen["Video_Games"]) == 5
        assert set(s.chosen["Video_Games"]) < set(b.chosen["Video_Games"])


def test_a_study_with_models_is_refused_as_a_bulk(tmp_path: Path) -> None:
    spec, out = study(tmp_path), tmp_path / "r"
    overrides = {"llm": {"models": {"m": {"name": "x", "base_url": "http://127.0.0.1:9"}}}}
    cells, configs = plan([str(spec)], out, overrides=overrides, seeds=1)
    with pytest.raises(ConfigError, match="pilot file's \\[llm\\] table"):
        plan_pilot(cells, configs, out, pilot_file(tmp_path), 0.2, 0)


def test_a_grown_pilot_plays_only_its_new_units_and_the_report_estimates_every_cell(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    played: list[int] = []
    original = runner.play_pending

    async def counted(cfg, round_, pending, *args, **kwargs):  # type: ignore[no-untyped-def]
        if cfg.draws == PILOT_DRAWS:
            played.append(len(pending))
        await original(cfg, round_, pending, *args, **kwargs)

    monkeypatch.setattr(runner, "play_pending", counted)
    spec, out, path = study(tmp_path), tmp_path / "r", pilot_file(tmp_path)
    reproduce([str(spec)], out, seeds=1, pilot=PilotAsked(path, 0.25, 3))
    first = sum(played)
    assert first == 2 * 24 * 3 // 12  # 3 of 12 users, 2 rounds each, in both cells
    played.clear()
    reproduce([str(spec)], out, seeds=1, pilot=PilotAsked(path, 0.5, 3))
    assert sum(played) == first  # 3 more users in each cell, no unit played twice
    cells, notes = read_piloted([out])
    assert not notes and [c.label for c in cells] == ["no-rep", "local-rep"]
    assert all(len(c.plays) == 4 and len(c.pilot) == 12 for c in cells)
    assert all(len(c.noise) == 2 and 0 < len(c.noise[0]) < len(c.pilot) for c in cells)
    rows = ppi_rows(cells)
    assert {r["estimand"] for r in rows} == {"expected"}  # an offline pilot draws
    assert {r["kind"] for r in rows} == {"level", "contrast"}
    contrast = next(
        r for r in rows if r["outcome"] == "target_purchase" and r["kind"] == "contrast"
    )
    assert contrast["cells"] == "local-rep - no-rep" and contrast["pilot_n"] == 6
    assert read_pilot(out).share == 0.5


def test_a_looked_at_pilot_refuses_a_smaller_share_another_seed_or_backend(
    tmp_path: Path,
) -> None:
    """A pilot that was looked at cannot be redrawn until a result pleases: each refusal
    is one line naming pilot.json, before anything plays, and leaves the record as it was;
    a larger share grows the pilot."""
    spec, out, path = study(tmp_path, 12), tmp_path / "r", pilot_file(tmp_path)
    reproduce([str(spec)], out, seeds=1, pilot=PilotAsked(path, 0.5, 3))
    record = (out / "pilot.json").read_text()
    other = pilot_file(tmp_path, NEAR.replace("0.7", "0.6"), "other.toml")
    for asked, said in (
        (PilotAsked(path, 0.25, 3), "share 0.25 would redraw it"),
        (PilotAsked(path, 0.5, 4), "seed 4 would redraw it"),
        (PilotAsked(other, 0.5, 3), "another backend would redraw it"),
    ):
        with pytest.raises(ConfigError, match=f"pilot.json: the pilot was looked at .*{said}"):
            reproduce([str(spec)], out, seeds=1, pilot=asked)
        assert (out / "pilot.json").read_text() == record
    reproduce([str(spec)], out, seeds=1, pilot=PilotAsked(path, 0.75, 3))
    assert read_pilot(out).share == 0.75 and read_pilot(out).first_share == 0.5


def test_an_edited_pilot_record_is_refused_before_it_is_read(tmp_path: Path) -> None:
    """A hand-edited pilot.json that makes the surrogate's own run be read as the pilot,
    chooses a unit the study does not have, or is not a record at all: one line each."""
    spec, out, path = study(tmp_path, 12), tmp_path / "r", pilot_file(tmp_path)
    reproduce([str(spec)], out, seeds=1, pilot=PilotAsked(path, 0.5, 3))
    record = json.loads((out / "pilot.json").read_text())

    def edited(change) -> str:  # type: ignore[no-untyped-def]
        data = json.loads(json.dumps(record))
        change(data["cells"][0])
        (out / "pilot.json").write_text(json.dumps(data))
        with pytest.raises(ConfigError) as refused:
            read_piloted([out])
        return str(refused.value)

    said = edited(lambda c: c.update(pilot_dir=c["study_dir"]))
    assert "pilot.json: cell no-rep: its pilot directory cells/no-rep-" in said
    assert "the record was edited" in said
    said = edited(lambda c: c["chosen"]["Video_Games"].append("99"))
    assert "its pilot chose unit 99, which the study does not have" in said
    said = edited(lambda c: c.update(chosen={"Books": ["1"]}))
    assert "its pilot chose domain Books" in said
    (out / "pilot.json").write_text('{"file": "x", "cells": 3}')
    with pytest.raises(ConfigError, match=r"pilot.json: not a pilot record \("):
        read_piloted([out])


def ppi_table(out: Path) -> str:
    cells, notes = read_piloted([out])
    assert not notes
    return json.dumps(ppi_rows(cells))  # NaN written alike on both sides


@pytest.mark.slow  # end to end: a study with its pilot killed at four points, and a clean one
def test_a_pilot_killed_at_any_point_resumes_to_the_estimates_of_an_uninterrupted_one(
    tmp_path: Path,
) -> None:
    spec, path = study(tmp_path, requests=120), pilot_file(tmp_path)
    env = dict(os.environ, RECMARKET_CACHE=str(tmp_path / "cache"))
    args = [str(spec), "--seeds", "1", "--workers", "1", "--pilot", str(path)]
    args += ["--pilot-share", "0.5"]
    clean, killed = tmp_path / "clean", tmp_path / "killed"
    subprocess.run(command(["reproduce", *args], clean), check=True, capture_output=True, env=env)
    total, kills = finished_episodes(clean), 0
    for share in (0.1, 0.4, 0.7, 0.95):
        proc = subprocess.Popen(
            command(["reproduce", *args], killed),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        deadline = time.monotonic() + 120
        while finished_episodes(killed) < share * total and proc.poll() is None:
            assert time.monotonic() < deadline
            time.sleep(0.002)
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            kills += 1
        proc.wait()
    assert kills >= 3, f"only {kills} kills landed before the study finished"
    subprocess.run(command(["reproduce", *args], killed), check=True, capture_output=True, env=env)
    assert finished_episodes(killed) == total
    assert ppi_table(killed) == ppi_table(clean)


def test_a_grown_pilot_keeps_its_first_looks_share_and_another_pilot_starts_anew(
    tmp_path: Path,
) -> None:
    spec, out, path = study(tmp_path), tmp_path / "r", pilot_file(tmp_path)
    cells, configs = plan([str(spec)], out, seeds=1)
    first, _, _ = plan_pilot(cells, configs, out, path, 0.2, 1)
    grown, _, _ = plan_pilot(cells, configs, out, path, 0.5, 1)
    other, _, _ = plan_pilot(cells, configs, out, path, 0.5, 2)
    looked = first.grown_from(None)
    assert looked.first_share == 0.2
    assert grown.grown_from(looked).first_share == 0.2
    assert grown.grown_from(grown.grown_from(looked)).first_share == 0.2
    assert other.grown_from(looked).first_share == 0.5  # another seed: another pilot


@pytest.mark.parametrize(
    ("flags", "said"),
    [
        (["--pilot-share", "0.2"], "give the pilot with --pilot"),
        (["--pilot", "PILOT"], "--pilot needs --pilot-share"),
        (["--pilot", "PILOT", "--pilot-share", "1.5"], "--pilot-share: 1.5 is not in (0, 1]"),
    ],
)
def test_pilot_flags_are_checked_together_in_one_line(
    tmp_path: Path, flags: list[str], said: str
) -> None:
    from typer.testing import CliRunner

    from recmarket.cli import app

    path = str(pilot_file(tmp_path))
    args = ["reproduce", "accountability", "--out", str(tmp_path / "r")]
    result = CliRunner().invoke(app, args + [path if f == "PILOT" else f for f in flags])
    assert result.exit_code == 2
    assert said in result.output and not (tmp_path / "r").exists()


def test_the_planner_sizes_each_estimand_from_the_first_pilot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """From a quarter of the units: the units a tighter interval needs, never more than
    every unit, fewer with PPI than pilot-only, and no calls for an offline pilot."""
    from typer.testing import CliRunner

    from recmarket.cli import app
    from recmarket.cli.app import out as console
    from recmarket.report.pilot_planner import plan_estimands

    monkeypatch.setattr(console, "width", 300)
    spec, out = study(tmp_path, requests=48), tmp_path / "r"
    path = pilot_file(tmp_path, "[pilot]\nmin_units_per_stratum = 3\n" + NEAR)
    reproduce([str(spec)], out, seeds=2, pilot=PilotAsked(path, 0.25, 3))
    planned = plan_estimands(out, 0.05, tmp_path / "cache", {"target_purchase"})
    assert [p.estimand for p in planned] == [
        "no-rep: target_purchase",
        "local-rep: target_purchase",
        "local-rep - no-rep: target_purchase",
    ]
    for p in planned:
        assert p.pilot_n == 6 and p.units == 24 and p.calls_per_unit == 0
        assert p.need_ppi is not None and p.need_pilot is not None
        assert 3 <= p.need_ppi <= p.need_pilot <= 24  # never below the strata's minimum
    result = CliRunner().invoke(
        app,
        ["pilot-plan", str(out), "--half-width", "0.05", "--outcome", "target_purchase"],
    )
    assert result.exit_code == 0, result.output
    assert "local-rep - no-rep: target_purchase" in result.output
    missing = CliRunner().invoke(app, ["pilot-plan", str(tmp_path), "--half-width", "0.05"])
    assert missing.exit_code == 2 and "no pilot" in missing.output


def test_a_spec_names_its_pilot_and_two_different_pilots_are_refused(tmp_path: Path) -> None:
    """The spec form of --pilot: a [pilot] table whose file is read beside the spec."""
    from recmarket.run.pilot import spec_pilot

    pilot_file(tmp_path)
    spec = study(tmp_path, requests=12)
    spec.write_text(spec.read_text() + '\n[pilot]\nfile = "pilot.toml"\nshare = 0.5\nseed = 2\n')
    other = tmp_path / "other" / "small.toml"
    other.parent.mkdir()
    other.write_text(spec.read_text().replace("share = 0.5", "share = 0.25"))
    assert spec_pilot([str(spec)]) == PilotAsked(tmp_path / "pilot.toml", 0.5, 2)
    with pytest.raises(ConfigError, match="name different pilots"):
        spec_pilot([str(spec), str(other)])
    reproduce([str(spec)], tmp_path / "r", seeds=1)
    recorded = read_pilot(tmp_path / "r")
    assert recorded is not None and (recorded.share, recorded.seed) == (0.5, 2)
    bad = tmp_path / "bad.toml"
    bad.write_text(spec.read_text().replace("share = 0.5", "share = 1.5"))
    with pytest.raises(ConfigError, match="share"):
        spec_pilot([str(bad)])


def test_a_surrogate_calibrated_on_the_pilot_is_cross_fitted_over_its_folds(
    tmp_path: Path,
) -> None:
    """calibrate_folds = 2: each fold's surrogate is calibrated on the other fold's pilot
    units only (so the two differ) and plays every unit; the report reads each pilot unit
    by the fold that never saw it."""
    from recmarket.report.pilot_data import piloted_cells

    spec, out = study(tmp_path, requests=48), tmp_path / "r"
    path = pilot_file(tmp_path, "[pilot]\ncalibrate_folds = 2\nsurrogate_replays = 2\n" + NEAR)
    reproduce([str(spec)], out, seeds=1, pilot=PilotAsked(path, 0.5, 1))
    recorded = read_pilot(out)
    assert recorded is not None and recorded.folds == 2
    for c in recorded.cells:
        assert len(c.fold_dirs) == 2 and all(len(plays) == 2 for plays in c.fold_dirs)
        dealt = list(c.folds["Video_Games"].values())
        assert sorted(c.folds["Video_Games"]) == c.chosen["Video_Games"]
        assert dealt.count(0) == dealt.count(1) == 3  # 6 of 12 users, dealt evenly
    first = recorded.cells[0].fold_dirs
    agents = []
    for plays in first:
        with RunStore.read(out / plays[0]) as store:
            agents.append(store.config().agents)
    assert agents[0] != agents[1] != RunConfig().agents  # calibrated apart
    cells = piloted_cells(out, recorded)
    assert all(len(c.fold_plays) == 2 and len(c.fold_of) == 6 for c in cells)
    rows = ppi_rows(cells, {"target_purchase"})
    assert len(rows) == 3 and all(np.isfinite(r["ppi"]) for r in rows)


def test_a_pilot_identical_to_the_surrogate_measures_a_bias_of_exactly_zero(
    tmp_path: Path,
) -> None:
    """Shared draws and the study's one play as the prediction: the pilot's episodes are
    the surrogate's, so every estimand's bias is 0 and its interval has no width."""
    spec, out = study(tmp_path, 12), tmp_path / "r"
    text = '[pilot]\ndraws = "shared"\nsurrogate_replays = 1\nestimand = "realised"\n'
    same = pilot_file(tmp_path, text)  # this play: the expected behaviour adds draw noise
    reproduce([str(spec)], out, seeds=1, pilot=PilotAsked(same, 0.5, 3))
    cells, notes = read_piloted([out])
    assert not notes and all(len(c.plays) == 1 for c in cells)
    rows = ppi_rows(cells)
    assert rows and all(r["bias"] == 0.0 for r in rows if np.isfinite(r["bias"]))
    assert all(r["bias_low"] == r["bias_high"] == 0.0 for r in rows if np.isfinite(r["bias"]))


def test_replays_count_their_decisions_at_the_chances_and_the_pilot_as_it_drew(
    tmp_path: Path,
) -> None:
    """The surrogate's replays keep every decision's chances; the study's own play and the
    pilot's episodes do not, and the prediction takes the replays' expectation. With
    ``exact_choices = false`` no replay keeps them. A damaged entry is refused by name."""
    spec, out = study(tmp_path, 12), tmp_path / "r"
    path = pilot_file(tmp_path, NEAR + "[pilot]\nsurrogate_replays = 2\n")
    reproduce([str(spec)], out, seeds=1, pilot=PilotAsked(path, 0.5, 3))
    cells, _ = read_piloted([out])
    for cell in cells:
        study_rows, replay_rows = cell.plays
        assert not any("choices" in r for r in [*study_rows, *cell.pilot])
        assert all(r["choices"] for r in replay_rows if r["failed_role"] is None)
    plan = read_pilot(out)
    replay = out / plan.cells[0].replay_dirs[0]
    with RunStore.read(replay) as store:
        held = store.choices()
    assert len(held) == 12

    drawn = NEAR + "[pilot]\nsurrogate_replays = 2\nexact_choices = false\n"
    plain = pilot_file(tmp_path, drawn, "plain.toml")
    other = tmp_path / "plain"
    reproduce([str(spec)], other, seeds=1, pilot=PilotAsked(plain, 0.5, 3))
    cells, _ = read_piloted([other])
    assert not any("choices" in r for c in cells for r in c.plays[1])

    with sqlite3.connect(replay / STORE_NAME) as db:
        kept = db.execute("SELECT body FROM choices WHERE ord = 5").fetchone()[0]
        db.execute("UPDATE choices SET body = '{\"chance\": [2]}' WHERE ord = 5")
    with pytest.raises(StoreError, match=r"episode Video_Games:5: its decision's alternatives"):
        read_piloted([out])
    entry = json.loads(kept)
    for damage, said in (
        ({"regret": [float("nan")] * len(entry["chance"])}, "a regret is not a finite number"),
        ({"purchased_platform": ["P99"] * len(entry["chance"])}, "buy from P99, which the"),
        (None, "alternatives are missing"),
    ):
        with sqlite3.connect(replay / STORE_NAME) as db:
            if damage is None:
                db.execute("DELETE FROM choices WHERE ord = 5")
            else:
                body = json.dumps(entry | damage)
                db.execute("UPDATE choices SET body = ? WHERE ord = 5", (body,))
        with pytest.raises(StoreError, match=rf"{STORE_NAME}: episode Video_Games:5: .*{said}"):
            read_piloted([out])


@pytest.mark.parametrize(
    ("table", "llm", "estimand"),
    [
        ("", None, "expected"),  # the offline rules draw
        ("", 0.0, "expected"),  # the roles the model does not answer are the rules'
        ('estimand = "realised"\n', None, "realised"),
        ("noise_replays = 0\n", None, "realised"),  # nothing measures the draw noise
    ],
)
def test_the_estimand_is_the_pilot_backends_expected_behaviour_where_it_draws(
    tmp_path: Path, table: str, llm: float | None, estimand: str
) -> None:
    from recmarket.run.pilot_file import resolved_estimand

    models = ""
    if llm is not None:
        models = f'[llm.models.m]\nname = "x"\ntemperature = {llm}\n[llm.roles]\ndecide = "m"\n'
    path = pilot_file(tmp_path, "[pilot]\n" + table + models, floor=False)
    cfg = RunConfig()
    pilot = read_pilot_file(path)
    assert resolved_estimand(pilot, pilot_config(cfg, pilot, path)) == estimand


def test_every_role_a_model_at_temperature_0_plays_the_realised_estimand(tmp_path: Path) -> None:
    from recmarket.run.pilot_file import resolved_estimand
    from recmarket.vocabulary import ROLES

    roles = "".join(f'{role} = "m"\n' for role in ROLES)
    text = f'[llm.models.m]\nname = "x"\ntemperature = 0.0\n[llm.roles]\n{roles}'
    path = pilot_file(tmp_path, text, floor=False)
    pilot = read_pilot_file(path)
    assert resolved_estimand(pilot, pilot_config(RunConfig(), pilot, path)) == "realised"
    hot = pilot_file(tmp_path, text.replace("0.0", "0.7"), "hot.toml", floor=False)
    assert (
        resolved_estimand(
            read_pilot_file(hot), pilot_config(RunConfig(), read_pilot_file(hot), hot)
        )
        == "expected"
    )
    with pytest.raises(ConfigError, match="estimand = expected needs noise_replays >= 1"):
        read_pilot_file(
            pilot_file(tmp_path, '[pilot]\nestimand = "expected"\nnoise_replays = 0\n', "x.toml")
        )
