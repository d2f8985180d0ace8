"""A judge remembers the fit levels it has read, and a remembered one is the one it would
read again."""

import numpy as np

from recmarket.agents import judgement
from recmarket.agents.judgement import Judge
from recmarket.agents.rules.params import OfflineParams
from recmarket.embedding import load_embedder
from recmarket.embedding.settings import EmbedderConfig
from recmarket.embedding.similarity import Similarity, similarity_for

NEED = "warm wool socks for hiking"
TEXTS = [
    "Merino hiking socks. Clothing",
    "Cotton dress socks. Clothing",
    "Trail running shoes. Footwear",
    "Wool blanket. Home",
    "Hiking poles. Outdoors",
]


def judge() -> Judge:
    """A judge that has read nothing yet (``Judge.of`` gives the process's shared one)."""
    return Judge(similarity_for(load_embedder(EmbedderConfig())), OfflineParams().scale)


def test_one_judge_a_process_for_an_embedder_and_a_scale() -> None:
    """The market's measures and the offline roles read one memory of fits."""
    embedder, scale = load_embedder(EmbedderConfig()), OfflineParams().scale
    shared = Judge.of(embedder, scale)
    assert Judge.of(embedder, scale) is shared
    assert Judge.of(embedder, scale.model_copy(update={"fit_zero": 0.3})) is not shared


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


def test_fits_read_ahead_for_many_needs_are_those_read_one_need_at_a_time() -> None:
    needs = [NEED, "a soft blanket for the couch", "light shoes for trail running"]
    alone = {(n, t): judge().fit(n, [t])[0] for n in needs for t in TEXTS}
    ahead = judge()
    ahead.read_ahead([(n, t) for t in TEXTS for n in needs[::-1]])
    assert ahead._fits == alone
    assert ahead.fit(needs[1], TEXTS).tolist() == [alone[needs[1], t] for t in TEXTS]
    assert max(TEXTS, key=lambda t: alone[needs[1], t]) == "Wool blanket. Home"


def test_a_fit_is_the_same_whatever_it_is_read_with() -> None:
    """A judge keeps fit levels by (need, text), and reads a block's pools together, so a
    cosine must not depend on how many pairs it was read with (a BLAS product's rounding
    may: the test fails with one)."""
    gen = np.random.default_rng(0)
    vectors = gen.normal(size=(40, 384)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)

    class Table:
        fingerprint = "table:1"

        def encode(self, texts: list[str]) -> np.ndarray:
            return vectors[[int(t) for t in texts]]

    def fresh() -> Judge:
        return Judge(Similarity(Table()), OfflineParams().scale)  # type: ignore[arg-type]

    texts = [str(i) for i in range(1, 40)]
    together = fresh().fit("0", texts)
    for i in range(1, 40):
        assert fresh().fit("0", [str(i)])[0] == together[i - 1]
        assert fresh().fit("0", texts[i - 1 :])[0] == together[i - 1]
    ahead = fresh()
    ahead.read_ahead([(n, t) for n in ("0", "7") for t in texts])
    assert ahead.fit("0", texts).tolist() == together.tolist()
