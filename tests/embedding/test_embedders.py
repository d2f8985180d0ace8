import multiprocessing
import time
from pathlib import Path

import numpy as np
import pytest

from recmarket.config import EmbedderConfig
from recmarket.embedding import EmbedderUnavailable, load_embedder
from recmarket.embedding.base import StaticEmbedder
from recmarket.embedding.cache import cache_key, embed_items


@pytest.fixture(scope="module")
def static() -> StaticEmbedder:
    return StaticEmbedder()


def test_bundled_static_model_loads_offline_and_normalises(static: StaticEmbedder) -> None:
    vectors = static.encode(["light gauge acoustic guitar strings", "wireless gaming mouse"])
    assert vectors.dtype == np.float32 and vectors.shape == (2, 256)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1, atol=1e-5)


def test_static_model_ranks_related_text_higher(static: StaticEmbedder) -> None:
    need, near, far = static.encode(
        [
            "strings for my acoustic guitar",
            "phosphor bronze acoustic guitar strings, light gauge",
            "insulated stainless steel water bottle",
        ]
    )
    assert need @ near > need @ far + 0.2


class CountingEmbedder:
    fingerprint = "counting:1"

    def __init__(self) -> None:
        self.calls = 0

    def encode(self, texts: list[str]) -> np.ndarray:
        self.calls += 1
        return np.eye(len(texts), 4, dtype=np.float32)


def test_cache_serves_repeat_requests_and_keys_on_model_and_data(tmp_path: Path) -> None:
    model = CountingEmbedder()
    first = embed_items(model, ["a", "b"], tmp_path)
    again = embed_items(model, ["a", "b"], tmp_path)
    assert model.calls == 1 and np.array_equal(first, again)
    embed_items(model, ["a", "c"], tmp_path)
    assert model.calls == 2
    other = CountingEmbedder()
    other.fingerprint = "counting:2"
    assert cache_key(other, ["a", "b"]) != cache_key(model, ["a", "b"])
    assert cache_key(model, ["ab", ""]) != cache_key(model, ["a", "b"])


@pytest.mark.parametrize("damage", ["truncate", "flip", "garbage", "wrong-digest"])
def test_a_damaged_cache_file_is_rebuilt_not_served(tmp_path: Path, damage: str) -> None:
    model = CountingEmbedder()
    clean = embed_items(model, ["a", "b", "c"], tmp_path)
    (path,) = (tmp_path / "embeddings").iterdir()
    data = bytearray(path.read_bytes())
    if damage == "truncate":
        data = data[: len(data) // 2]
    elif damage == "flip":
        data[len(data) // 3] ^= 0xFF
    elif damage == "garbage":
        data = bytearray(b"not a cache file")
    else:  # a whole file whose vectors no longer match their recorded checksum
        np.savez(path, vectors=clean * 2, sha256=np.zeros(32, np.uint8))
        data = bytearray(path.read_bytes())
    path.write_bytes(bytes(data))
    rebuilt = embed_items(model, ["a", "b", "c"], tmp_path)
    assert model.calls == 2 and np.array_equal(rebuilt, clean)
    assert embed_items(model, ["a", "b", "c"], tmp_path) is not None and model.calls == 2


class SlowLoggingEmbedder:
    """Encodes slowly and notes each encoding in a file, which every process appends to."""

    fingerprint = "slow:1"

    def __init__(self, log: Path) -> None:
        self.log = log

    def encode(self, texts: list[str]) -> np.ndarray:
        with self.log.open("a") as fh:
            fh.write("encoded\n")
        time.sleep(0.5)
        return np.eye(len(texts), 4, dtype=np.float32)


def _embed_in_a_worker(log: Path, cache: Path) -> np.ndarray:
    return embed_items(SlowLoggingEmbedder(log), ["a", "b"], cache)


def test_processes_missing_the_same_matrix_at_once_embed_it_once(tmp_path: Path) -> None:
    if "fork" not in multiprocessing.get_all_start_methods():
        pytest.skip("needs fork")
    log, cache = tmp_path / "log", tmp_path / "cache"
    with multiprocessing.get_context("fork").Pool(3) as pool:
        results = pool.starmap(_embed_in_a_worker, [(log, cache)] * 3)
    assert log.read_text().count("encoded") == 1
    assert all(np.array_equal(r, results[0]) for r in results)


def test_bge_without_its_extra_or_weights_says_what_is_missing() -> None:
    with pytest.raises(EmbedderUnavailable, match=r"bge|weights"):
        load_embedder(EmbedderConfig(kind="bge", bge_model="/nonexistent/bge-base"))


def test_unwritable_cache_still_returns_the_vectors(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    model = CountingEmbedder()
    vectors = embed_items(model, ["a", "b"], blocker)
    assert vectors.shape == (2, 4) and model.calls == 1


def test_sentence_transformers_backend_where_the_extra_is_installed(tmp_path: Path) -> None:
    """The bge backend loads any sentence-transformers model from a local path. The test
    builds one from the bundled model2vec weights, so it needs no download."""
    pytest.importorskip("sentence_transformers", reason="the 'bge' extra is not installed")
    from sentence_transformers import SentenceTransformer

    try:  # sentence-transformers 5 moved its modules
        from sentence_transformers.sentence_transformer.modules import StaticEmbedding
    except ImportError:
        from sentence_transformers.models import StaticEmbedding

    from recmarket.embedding.base import BUNDLED_MODEL, SentenceTransformerEmbedder

    module = StaticEmbedding.from_model2vec(str(BUNDLED_MODEL))
    SentenceTransformer(modules=[module], device="cpu").save(str(tmp_path))
    model = SentenceTransformerEmbedder(str(tmp_path), "query: ")
    docs = model.encode(["acoustic guitar strings", "stainless water bottle"])
    (query,) = model.encode_queries(["strings for my guitar"])
    assert docs.shape == (2, 256)
    assert np.allclose(np.linalg.norm(docs, axis=1), 1, atol=1e-5)
    assert query @ docs[0] > query @ docs[1] + 0.3
    assert model.fingerprint == f"sentence-transformers:{tmp_path}"
