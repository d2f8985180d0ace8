"""Settings added later, marked where they are declared, leave stored runs' hashes alone."""

from typing import Annotated

import pytest
from pydantic import BaseModel

from recmarket.config import RunConfig
from recmarket.hashing import ADDED_LATER, OPERATIONAL, left_out

# Hashes of run configurations as stored before the marks replaced a hand-kept list: a
# stored run directory resumes only while its configuration hashes to the same value.
# Every hash here changed on purpose when the offline model's defaults changed: once for
# issue 45 (Exaggeration's claim rule, the Mixed label's credibility), once for issue 51 (the
# simulated user fitted to real people: the need from recent liked purchases, the ranker's
# long-term weight, the shopper's request, the personal review), once for issue 63 (the
# buyer's request, High records at the prior, the Rep instruction's share), once for issue
# 66 (the long-term need naming the newest liked purchase and the store returned to). A run
# stored under an earlier model must not be resumed by this one.
STORED = {
    "7a559953f7d1ec55b2568460f388223b72316282e4b4b75fdb23f719ad2eb173": {},
    "7ecbc8b0ff706e156c35854d40caffe0a2e5776c1da4ad1baac505e6868ca55d": {
        "agents": {"ranker": {"noise": "gumbel"}},
        "condition": "no-rep",
    },
    # An LLM run as hashed since llm.text_replies.
    "bc28f51776c8c385c4376124fc174e2a13da8a7271d146a26609e983e5429163": {
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
        "d5bb09acb671151c45703403f6794c6c463f4d118316646769351ebd472a088a",
        {"reputation_mechanism": "beta"},
        {"reputation": {"mechanism": "beta"}},
    ),
    (
        "3c5ab413be3663b4eac25bb93153d541b40c8226d14a8ef99874fc9aff55dc2b",
        {"reputation_mechanism": "decay", "reputation_decay": 0.5},
        {"reputation": {"mechanism": "decay", "params": {"rate": 0.5}}},
    ),
    (
        "90633f29daf338f396a7c4874e1da9bd93784593f08b9a6181e7e8d6ef030254",
        {"platform_strategy": "adaptive", "learning_rule": "exp3"},
        {"platform_strategy": "adaptive", "learning": {"rule": "exp3"}},
    ),
    (  # both forms in one run: the current reputation, the older learning rule
        "5cd3c1411d935ed9a64b11758a79dea364816f063fb859df640b21e2ff87ea1d",
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
        "9f1a3f7deba8512759a4d66038d2c05828fe9caef5e6c8f68975ff1169b70627",
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
        "b85214092dbcaa08a83962b989dd7f1c5e001e94ec713088f62683d2aa4785ba",
        {"behaviours": {"P4": {"behaviour": "whitewash", "params": {"below": 0.2}}}},
        {"attacks": {"P4": {"attack": "whitewash", "params": {"below": 0.2}}}},
    ),
    (  # an older attack and an older mechanism in one run
        "888a18092126963fe8df5d46a2af3ff630fed5b712804cd680933de5b423965f",
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
def test_an_older_form_is_read_into_the_current_one_and_migrate_knows_its_stored_hash(
    stored: str, older: dict, current: dict
) -> None:
    said = r"older form of a setting; write market.*recmarket migrate.*read until recmarket 0\.2"
    with pytest.warns(DeprecationWarning, match=said):
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
    llm = STORED["bc28f51776c8c385c4376124fc174e2a13da8a7271d146a26609e983e5429163"]
    for text_replies in ("sentences", "text"):
        settings = {"llm": {**llm["llm"], "text_replies": text_replies}}
        assert RunConfig.model_validate(settings).digest() != BEFORE_TEXT_REPLIES


def test_a_marked_setting_counts_in_the_hash_only_when_set() -> None:
    default = RunConfig()
    assert left_out(default)["market"]["entrants"] is True
    assert "seed" not in left_out(default)  # unmarked settings always count
    changed = RunConfig.model_validate({"market": {"learning_period": 24}})
    assert "learning_period" not in left_out(changed)["market"]
    assert changed.digest() != default.digest()


def test_marks_are_found_in_models_within_models() -> None:
    class Inner(BaseModel):
        later: Annotated[int, ADDED_LATER] = 1
        kept: int = 2

    class Outer(BaseModel):
        inner: Inner = Inner()

    assert left_out(Outer()) == {"inner": {"later": True}}
    assert left_out(Outer(inner=Inner(later=5))) == {}


def test_an_operational_setting_is_always_left_out_in_models_and_tables_of_them() -> None:
    class Model(BaseModel):
        limit: Annotated[int, OPERATIONAL] = 8
        temperature: float = 0.0

    class Table(BaseModel):
        models: dict[str, Model] = {}
        batch_poll: Annotated[float, OPERATIONAL] = 30.0

    held = Table(models={"a": Model(limit=2), "b": Model(temperature=0.5)})
    assert left_out(held) == {
        "models": {"a": {"limit": True}, "b": {"limit": True}},
        "batch_poll": True,
    }
    fast = RunConfig.model_validate(
        {"llm": {"models": {"m": {"name": "x", "concurrency": 2, "timeout": 9.0}}, "mode": "batch"}}
    )
    slow = RunConfig.model_validate({"llm": {"models": {"m": {"name": "x"}}}})
    warmer = RunConfig.model_validate({"llm": {"models": {"m": {"name": "x", "temperature": 0.7}}}})
    assert fast.digest() == slow.digest() != warmer.digest()  # how calls are made, not what
