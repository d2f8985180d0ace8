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
# Settings in the older forms of the reputation and learning settings, as their runs were
# hashed (by the version before those forms were read into the current ones), and the same
# settings in the current form.
OLDER_FORMS = [
    (
        "37971f202fe20fbaf952b7d2cb8019996d358f0dd22e61733a5947975d07296a",
        {"reputation_mechanism": "beta"},
        {"reputation": {"mechanism": "beta"}},
    ),
    (
        "c5893732c18efd87e48f29399552a3b8d1b6358fcc0947c388f4e5a3c5c12b7b",
        {"reputation_mechanism": "decay", "reputation_decay": 0.5},
        {"reputation": {"mechanism": "decay", "params": {"rate": 0.5}}},
    ),
    (
        "2727e63e74ec0508f3337a29585bfbdf7714a8b24e1e2a8279a141718d20712d",
        {"platform_strategy": "adaptive", "learning_rule": "exp3"},
        {"platform_strategy": "adaptive", "learning": {"rule": "exp3"}},
    ),
    (  # both forms in one run: the current reputation, the older learning rule
        "5e7f9ae6269ce9ec6e5e9277c08fff585bb315955afe7cfb9bd229b79d6ff566",
        {
            "reputation": {"mechanism": "beta", "params": {"newcomer_low": 2}},
            "learning_rule": "exp3",
            "platform_strategy": "adaptive",
        },
        {
            "reputation": {"mechanism": "beta", "params": {"newcomer_low": 2}},
            "learning": {"rule": "exp3"},
            "platform_strategy": "adaptive",
        },
    ),
    (
        "356f4fc92d617a6926ab3ef5986d5df796d9052ea113d6143f04716a9009da9f",
        {
            "reputation_mechanism": "decay",
            "reputation_decay": 0.8,
            "platform_strategy": "adaptive",
            "learning_rule": "exp3",
        },
        {
            "reputation": {"mechanism": "decay", "params": {"rate": 0.8}},
            "platform_strategy": "adaptive",
            "learning": {"rule": "exp3"},
        },
    ),
    (  # attacks, before they had one name
        "d1a7c1d985c8ec14ddfcd753d2aacf2b82c73dbb281fbe4770e3f70196557e36",
        {"behaviours": {"P4": {"behaviour": "whitewash", "params": {"below": 0.2}}}},
        {"attacks": {"P4": {"attack": "whitewash", "params": {"below": 0.2}}}},
    ),
    (  # an older attack and an older mechanism in one run
        "42b9921fbf3aa55b3dbd8d625b53dfcd0ef18232cd5df80edb8d796422befd71",
        {
            "behaviours": {"P4": {"behaviour": "sybil"}},
            "reputation_mechanism": "decay",
            "reputation_decay": 0.5,
        },
        {
            "attacks": {"P4": {"attack": "sybil"}},
            "reputation": {"mechanism": "decay", "params": {"rate": 0.5}},
        },
    ),
]
# The same LLM run as hashed before it: its explanations and reviews were asked for plain
# text, so it must not be resumed into by a version that asks for arrays of sentences.
BEFORE_TEXT_REPLIES = "bad56ce66f8e38ee90362e76285917a0ab969df9a0897a5923ee08902b5374f8"


@pytest.mark.parametrize(("digest", "settings"), STORED.items())
def test_configurations_hash_as_they_did_when_their_runs_were_stored(digest, settings) -> None:
    assert RunConfig.model_validate(settings).digest() == digest


@pytest.mark.parametrize(("stored", "older", "current"), OLDER_FORMS)
def test_an_older_form_is_read_into_the_current_one_and_its_stored_hash_still_names_it(
    stored: str, older: dict, current: dict
) -> None:
    with pytest.warns(DeprecationWarning, match="older form of a setting; write market"):
        read = RunConfig.model_validate({"market": older})
    now = RunConfig.model_validate({"market": current})
    assert read == now and read.digest() == now.digest()  # one setting, one identity
    assert stored in now.older_digests() and stored != now.digest()


def test_the_window_in_the_older_form_is_the_default_and_hashes_as_it() -> None:
    with pytest.warns(DeprecationWarning):
        read = RunConfig.model_validate({"market": {"reputation_mechanism": "window"}})
    assert read == RunConfig() and read.digest() == next(iter(STORED))
    assert RunConfig().older_digests() == ()


def test_a_setting_given_in_both_forms_is_refused() -> None:
    both = {"reputation_mechanism": "beta", "reputation": {"mechanism": "decay"}}
    with pytest.raises(ValueError, match="drop reputation_mechanism and reputation_decay"):
        RunConfig.model_validate({"market": both})
    sybil = {"P4": {"attack": "sybil"}}
    both = {"attacks": sybil, "behaviours": {"P3": {"behaviour": "forge"}}}
    with pytest.raises(ValueError, match=r"drop market\.behaviours"):
        RunConfig.model_validate({"market": both})


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
