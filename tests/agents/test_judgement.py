"""A judge remembers the fit levels it has read, and a remembered one is the one it would
read again."""

import numpy as np

from recmarket.agents import judgement
from recmarket.agents.judgement import Judge
from recmarket.agents.rules.params import OfflineParams
from recmarket.embedding import load_embedder
from recmarket.embedding.settings import EmbedderConfig

NEED = "warm wool socks for hiking"
TEXTS = [
    "Merino hiking socks. Clothing",
    "Cotton dress socks. Clothing",
    "Trail running shoes. Footwear",
    "Wool blanket. Home",
    "Hiking poles. Outdoors",
]


def judge() -> Judge:
    return Judge.of(load_embedder(EmbedderConfig()), OfflineParams().scale)


def test_fits_read_in_any_company_equal_those_read_alone(monkeypatch) -> None:
    monkeypatch.setattr(judgement, "FITS_KEPT", 4)  # and past the limit, cleared
    alone = [judge().fit(NEED, [t])[0] for t in TEXTS]
    remembering = judge()
    together = remembering.fit(NEED, TEXTS)
    assert together.tolist() == alone
    assert remembering.fit(NEED, TEXTS[::-1]).tolist() == alone[::-1]
    assert remembering.fit("a different need", TEXTS[:1])[0] != alone[0]
    assert len(remembering._fits) == 1  # five kept, then cleared for the sixth
    assert np.argmax(together) == 0  # the reading still means something
