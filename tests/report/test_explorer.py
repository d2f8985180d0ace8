"""The explorer's episodes: a layer at a time across runs, within a byte budget, so that the
page stays small enough to send; the page carries them gzipped."""

import base64
import gzip
import json
import re

from recmarket.report.explorer import EXPLORER_PER_DOMAIN, bounded
from recmarket.report.html import page


def episode(run: int, layer: int, size: int = 200) -> dict:
    return {"episode_id": f"r{run}/{layer}", "text": f"{run}-{layer}-" + "x" * size}


def test_whole_layers_come_first_and_the_budget_holds() -> None:
    layers = [[episode(r, k) for r in range(5)] for k in range(EXPLORER_PER_DOMAIN)]
    everything = bounded(layers, budget=10**9)
    assert len(everything.episodes) == everything.offered == 15
    assert "(the first 3 of each domain in every run)" in everything.note()
    one = len(gzip.compress(json.dumps(layers[0][0]).encode()))
    some = bounded(layers, budget=7 * one)
    ids = [e["episode_id"] for e in some.episodes]
    assert ids[:5] == [f"r{r}/0" for r in range(5)]  # every run's first, before any second
    assert 5 <= len(ids) < 15 and some.offered == 15
    assert f"{len(ids)} episodes of the 15 first ones" in some.note()
    assert "recmarket show" in some.note()


def test_the_page_carries_the_episodes_gzipped_and_inert() -> None:
    planted = [{"title": "</script><script>alert(1)</script>"}]
    html = page("", "", planted, "note", {})
    packed = re.search(r'id="episodes">([^<]*)</script>', html)
    assert packed is not None and "alert" not in html
    assert json.loads(gzip.decompress(base64.b64decode(packed.group(1)))) == planted
