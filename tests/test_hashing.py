"""Settings added later, marked where they are declared, leave stored runs' hashes alone."""

from typing import Annotated

import pytest
from pydantic import BaseModel

from recmarket.config import RunConfig
from recmarket.hashing import ADDED_LATER, unset_later

# Hashes of run configurations as stored before the marks replaced a hand-kept list: a
# stored run directory resumes only while its configuration hashes to the same value.
# Every hash here changed once, on purpose, when issue 45 changed the offline model's
# defaults (Exaggeration's claim rule, the Mixed label's credibility): a run stored under the
# earlier model must not be resumed by this one.
STORED = {
    "64a042242fcdc5092fa735b128e9ba2dbd28925f0774fb3d19c7f95e54e9ef29": {},
    "05bc6d0f8115a6ced27f0aa2dde608b10c982bb6587efd47b22fe361866ebf94": {
        "agents": {"ranker": {"noise": "gumbel"}},
        "condition": "no-rep",
    },
    # An LLM run as hashed since llm.text_replies.
    "1edc45384ba3cd15071c20cd592ea9cd610bd0d7cedc7e61ad1759be553a4054": {
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
        "41941878b8e8cd6bd117a4faa8fce47487fd5eec7722d4d799f13f84f3af29b0",
        {"reputation_mechanism": "beta"},
        {"reputation": {"mechanism": "beta"}},
    ),
    (
        "d7c9b6d6c6fc2e92b474a5dfe94d0fc4b3e1f496e369b415c12652cc9bd7e366",
        {"reputation_mechanism": "decay", "reputation_decay": 0.5},
        {"reputation": {"mechanism": "decay", "params": {"rate": 0.5}}},
    ),
    (
        "8d047b969065315ef4f51e0ea9b045c6946844a77d5db0dfb56d96ed9138f54f",
        {"platform_strategy": "adaptive", "learning_rule": "exp3"},
        {"platform_strategy": "adaptive", "learning": {"rule": "exp3"}},
    ),
    (  # both forms in one run: the current reputation, the older learning rule
        "cd694a3e83385afae8abb316d620eb06e62cf09775fc0e07b868cf7e1977a6c0",
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
        "74ac0f20a9939b78bdbe088b095cdc695abbe191558723ac9aa6ab1fdcdd5575",
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
        "778c93870b46d7138cbee7ac2d4f891bde0b1315d269e696246fc5d478290a27",
        {"behaviours": {"P4": {"behaviour": "whitewash", "params": {"below": 0.2}}}},
        {"attacks": {"P4": {"attack": "whitewash", "params": {"below": 0.2}}}},
    ),
    (  # an older attack and an older mechanism in one run
        "8fe666b7e5d5f187b6f3e75e64b344fa633f0fdfaa697d9e27cb6f879b6fd372",
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
    llm = STORED["1edc45384ba3cd15071c20cd592ea9cd610bd0d7cedc7e61ad1759be553a4054"]
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
