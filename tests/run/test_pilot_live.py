"""A pilot played by a real model: SmolLM2-135M-Instruct, served by llama.cpp on loopback,
answers the evaluation roles (shortlist, decision, record update) on half the users of an
accountability-shaped study; the offline surrogate plays every unit. The report gives PPI
intervals with the backends' correlation stated, whatever it is (with a 135M model it may
well be near zero, and the section says so then).

Marked ``live``: off by default, run by .ci/run after the default suite.
"""

from __future__ import annotations

import csv
import math
from pathlib import Path

from recmarket.agents.llm.local import LocalServer
from tests.run.test_local_model_live import model_settings, pytestmark, recmarket

__all__ = ["pytestmark"]  # live, and skipped without the local model, as that module is

SPEC = """
name = "small-accountability"
description = "NoRep and LocalRep in the Balanced-Exaggeration market, one domain"
requests = 12
seeds = [3]
[base]
domains = ["Video_Games"]
market = { composition = "balanced-exaggeration", n_platforms = 3, shortlist_k = 2 }
episodes = { users_per_profile = 1 }
[[cells]]
name = "no-rep"
settings = { condition = "no-rep" }
[[cells]]
name = "local-rep"
settings = { condition = "local-rep" }
"""


def test_the_local_model_as_pilot_gives_ppi_intervals_with_the_correlation_stated(
    tmp_path: Path,
) -> None:
    spec, pilot, out = tmp_path / "small.toml", tmp_path / "pilot.toml", tmp_path / "study"
    spec.write_text(SPEC)
    with LocalServer(threads=2, log=tmp_path / "server.log") as server:
        table = "[pilot]\nsurrogate_replays = 2\nmin_units_per_stratum = 3\n"  # 3 units: one pool
        pilot.write_text(table + model_settings(server, 'evaluation = "smol"'))
        args = ["reproduce", str(spec), "--out", str(out), "--pilot", str(pilot)]
        args += ["--pilot-share", "0.5", "--llm-cache", str(tmp_path / "calls")]
        played = recmarket(*args, timeout=1800)
    assert played.returncode == 0, played.stderr[-2000:]
    again = recmarket(*args, timeout=300)  # the server is gone: the rerun needs no network
    assert again.returncode == 0, again.stderr[-2000:]
    made = recmarket("report", str(out))
    assert made.returncode == 0, made.stderr[-2000:]
    rows = list(csv.DictReader((out / "report" / "tables" / "ppi.csv").open()))
    contrast = next(
        r for r in rows if r["kind"] == "contrast" and r["outcome"] == "target_purchase"
    )
    assert contrast["cells"] == "local-rep - no-rep" and contrast["unit"] == "user"
    assert int(contrast["pilot_n"]) == 3 and int(contrast["units"]) == 6  # half the users
    assert all(math.isfinite(float(r["ppi"])) for r in rows)
    assert any(math.isfinite(float(r["correlation"])) for r in rows)
    page = (out / "report" / "report.html").read_text()
    assert "Correlation between the pilot backend and the surrogate" in page
