"""The validity card with the user's roles answered by a real model: SmolLM2-135M-Instruct
served by llama.cpp on loopback. Asserts what the tool guarantees whatever the model says
(the card is written, every value is a measure's, role failures are counted outcomes, the
stored calls make the same card with the server gone), never how well the model judges.

Marked ``live``: off by default, run by .ci/run after the default suite.
"""

from __future__ import annotations

import csv
from pathlib import Path

from recmarket.agents.llm.local import LocalServer
from tests.data.test_domain import newest_first
from tests.fixtures import meta
from tests.run.test_local_model_live import model_settings, pytestmark, recmarket

__all__ = ["pytestmark"]  # live, and skipped without the local model, as that module is

ROLES = "\n".join(f'{role} = "smol"' for role in ("need", "shortlist", "decide", "review"))


def test_the_local_model_answers_the_user_roles_on_a_few_people(
    make_domain, tmp_path: Path
) -> None:
    items = [f"i{k:02d}" for k in range(20)]
    kinds = ["Guitar Strings", "Drum Sticks", "Piano Bench", "Violin Bow"]
    reviews = []
    for u in range(4):
        mine = [items[(u % 4) + 4 * j] for j in range(5)]  # five: enough to load
        reviews += newest_first(f"user{u:03d}", mine, [5.0, 4.0, 5.0, 4.0, 2.0 if u == 3 else 5.0])
    metas = [meta(x, title=f"Maple {kinds[k % 4]} No {k}") for k, x in enumerate(items)]
    data = make_domain(reviews, metas, name="Tiny")
    config, out = tmp_path / "model.toml", tmp_path / "card"
    args = [
        "validate",
        "--data",
        str(data),
        "--negatives",
        "2",
        "--pairs",
        "1",
        "--config",
        str(config),
    ]
    with LocalServer(threads=2, log=tmp_path / "server.log") as server:
        config.write_text(model_settings(server, ROLES, tokens=120))
        played = recmarket(*args, "--out", str(out), timeout=1500)
    assert played.returncode == 0, played.stderr[-2000:]
    card = (out / "validity.csv").read_text()
    rows = list(csv.DictReader(card.splitlines()))
    assert {"ranker", "decision", "centroid", "person_mean"} <= {r["scorer"] for r in rows}
    for r in rows:
        if r["value"] and r["measure"] in ("hr@1", "pairwise_1to1", "buy_accuracy_1to1"):
            assert 0.0 <= float(r["value"]) <= 1.0
    again = recmarket(*args, "--replay", "--out", str(out), timeout=300)  # no server now
    assert again.returncode == 0, again.stderr[-2000:]
    assert (out / "validity.csv").read_text() == card
