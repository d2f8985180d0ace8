"""Settings added later, marked where they are declared, leave stored runs' hashes alone."""

from typing import Annotated

import pytest
from pydantic import BaseModel

from recmarket.config import RunConfig
from recmarket.hashing import ADDED_LATER, unset_later

# Hashes of run configurations as stored before the marks replaced a hand-kept list: a
# stored run directory resumes only while its configuration hashes to the same value.
STORED = {
    "837cc76e3fef82be1f15b85dcdf632baf8f4ddf70fc7a09f7cdeba4f429141a1": {},
    "37971f202fe20fbaf952b7d2cb8019996d358f0dd22e61733a5947975d07296a": {
        "market": {"reputation_mechanism": "beta"}
    },
    "0fd44a5bba1b40678d3d09c2785b0d84481df80147c939ed0e106854c3cb2c6a": {
        "agents": {"ranker": {"noise": "gumbel"}},
        "condition": "no-rep",
    },
    # An LLM run as hashed since llm.text_replies.
    "83ebe9351b2c11d7c182b1f93ec414dd1ec43d1bb18d9dc3c2b720cd590605da": {
        "llm": {
            "models": {"m": {"name": "x", "base_url": "http://127.0.0.1:1/v1", "timeout": 3}},
            "roles": {"default": "m"},
        }
    },
}
# The same LLM run as hashed before it: its explanations and reviews were asked for plain
# text, so it must not be resumed into by a version that asks for arrays of sentences.
BEFORE_TEXT_REPLIES = "bad56ce66f8e38ee90362e76285917a0ab969df9a0897a5923ee08902b5374f8"


@pytest.mark.parametrize(("digest", "settings"), STORED.items())
def test_configurations_hash_as_they_did_when_their_runs_were_stored(digest, settings) -> None:
    assert RunConfig.model_validate(settings).digest() == digest


def test_an_llm_run_stored_before_the_array_of_sentences_hashes_apart() -> None:
    llm = STORED["83ebe9351b2c11d7c182b1f93ec414dd1ec43d1bb18d9dc3c2b720cd590605da"]
    for text_replies in ("sentences", "text"):
        settings = {"llm": {**llm["llm"], "text_replies": text_replies}}
        assert RunConfig.model_validate(settings).digest() != BEFORE_TEXT_REPLIES


def test_a_marked_setting_counts_in_the_hash_only_when_set() -> None:
    default = RunConfig()
    assert unset_later(default)["market"]["entrants"] is True
    assert "seed" not in unset_later(default)  # unmarked settings always count
    changed = RunConfig.model_validate({"market": {"learning_period": 24}})
    assert "learning_period" not in unset_later(changed)["market"]
    assert changed.digest() != default.digest()


def test_marks_are_found_in_models_within_models() -> None:
    class Inner(BaseModel):
        later: Annotated[int, ADDED_LATER] = 1
        kept: int = 2

    class Outer(BaseModel):
        inner: Inner = Inner()

    assert unset_later(Outer()) == {"inner": {"later": True}}
    assert unset_later(Outer(inner=Inner(later=5))) == {}
