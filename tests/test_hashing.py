"""Settings added later, marked where they are declared, leave stored runs' hashes alone."""

from typing import Annotated

import pytest
from pydantic import BaseModel

from recmarket.config import RunConfig
from recmarket.hashing import ADDED_LATER, unset_later

# Hashes of run configurations as stored before the marks replaced a hand-kept list: a
# stored run directory resumes only while its configuration hashes to the same value.
# Every hash here changed on purpose when the offline model's defaults changed: once for
# issue 45 (Exaggeration's claim rule, the Mixed label's credibility), once for issue 51 (the
# simulated user fitted to real people: the need from recent liked purchases, the ranker's
# long-term weight, the shopper's request, the personal review). A run stored under an
# earlier model must not be resumed by this one.
STORED = {
    "cd9fc251cb907590d9e73dceb8f440be77ef736ca1307cd5c4f091d20946545d": {},
    "c220604dc4aa42433fae41fa03c043ddd9b1ec368038241301c79c79e5b80411": {
        "agents": {"ranker": {"noise": "gumbel"}},
        "condition": "no-rep",
    },
    # An LLM run as hashed since llm.text_replies.
    "67e84413a773f3060eb367bd385a2986371a4f60dd10809b2365bb7b1ef459e9": {
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
        "b6f2142da36a16870d96dbfb21e48de769b0ffd69248f0d63eb56c8f884b5720",
        {"reputation_mechanism": "beta"},
        {"reputation": {"mechanism": "beta"}},
    ),
    (
        "cede646e7fbdb8d9ef16d8a8bbf1754b81faa021e20ae40ac328bfe964a2302e",
        {"reputation_mechanism": "decay", "reputation_decay": 0.5},
        {"reputation": {"mechanism": "decay", "params": {"rate": 0.5}}},
    ),
    (
        "0e57324a8d4203544cbf39716307acf2ea6b5a0371f67054d28be5503fe8ce5b",
        {"platform_strategy": "adaptive", "learning_rule": "exp3"},
        {"platform_strategy": "adaptive", "learning": {"rule": "exp3"}},
    ),
    (  # both forms in one run: the current reputation, the older learning rule
        "d1848dae28f5c6acf53c4d1abbd367c422406bdb04044c1572faf889bd15bde1",
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
        "727eada0f5d0536a401a5c0e67507699144207f341340f38426a28b36586629f",
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
        "8f82e3bebbb06e0ac15a411e8d8f1d00591dad6ab3829e73eb0e7326ef43efc6",
        {"behaviours": {"P4": {"behaviour": "whitewash", "params": {"below": 0.2}}}},
        {"attacks": {"P4": {"attack": "whitewash", "params": {"below": 0.2}}}},
    ),
    (  # an older attack and an older mechanism in one run
        "4fa85a00e511742dbea52da249ffde8f1220d4a85a76ff903200fa20cd26acab",
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
    llm = STORED["67e84413a773f3060eb367bd385a2986371a4f60dd10809b2365bb7b1ef459e9"]
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
