"""The reputation mechanisms: what each shows the user agent, and what the offline ranker
believes from it."""

from dataclasses import dataclass, replace

import pytest

from recmarket.agents.contracts import ReputationRecord
from recmarket.agents.rules.agent import credibility
from recmarket.agents.rules.params import RankerParams
from recmarket.catalogue.mechanisms import (
    MECHANISMS,
    PENALTY_NOTE,
    EveryRecord,
    ReputationSetting,
)
from recmarket.config import RunConfig
from recmarket.market.reputation import ReputationMemory
from tests.fixtures import user_request

LOW = ReputationRecord(claim_reliability="low", note="It overstated what it delivered.")
HIGH = ReputationRecord(claim_reliability="high", note="Claims matched my use.")


DECAY = {"decay": {"rate": 0.6}, "beta": {}}


def shown(mechanism: str, labels: list[ReputationRecord], **params) -> tuple:
    setting = ReputationSetting(mechanism=mechanism, params=params)
    memory = ReputationMemory(window=3, scope="local", setting=setting)
    request = user_request(0)
    for record in labels:
        memory.append(request, "P1", record)
    return memory.histories(request, ("P1",))["P1"]


def test_window_shows_the_last_w_records_unweighted() -> None:
    records = shown("window", [LOW, LOW, HIGH, HIGH])
    assert [r.claim_reliability for r in records] == ["low", "high", "high"]
    assert all(r.counted == 1.0 for r in records)
    assert "weight" not in records[0].model_dump_json()  # stored records read as before


def test_beta_shows_every_record_and_with_none_the_reader_keeps_its_prior() -> None:
    assert len(shown("beta", [LOW] * 25)) == 25
    params = RankerParams()
    assert credibility(shown("beta", []), True, params) == params.credence


def test_decay_weighs_records_by_the_number_of_newer_ones() -> None:
    records = shown("decay", [LOW, LOW, HIGH], rate=0.5)
    assert [r.weight for r in records] == [0.25, 0.5, 1.0]
    assert len(shown("decay", [LOW] * 200, rate=0.5)) == 10  # 0.5**10 < 1e-3: forgotten


def test_under_decay_a_platform_whose_claims_improve_recovers() -> None:
    """After a long run of low labels, a few high ones restore belief under decay, while
    beta, which remembers every low label alike, still believes the platform little (High
    a bonus here, as before issue 63, so that recovery shows above the prior)."""
    params = RankerParams(label_credibility={"high": 1.0, "mixed": 0.25, "low": 0.0})
    history = [LOW] * 30 + [HIGH] * 5

    def belief(mechanism: str, records: list) -> float:
        return credibility(shown(mechanism, records, **DECAY[mechanism]), True, params)

    assert belief("decay", history) > params.credence > belief("decay", [LOW] * 30)
    assert belief("beta", [LOW] * 30) < belief("beta", history) < params.credence / 2


def test_new_mechanism_settings_leave_stored_runs_their_directories() -> None:
    """At their defaults the mechanism settings are not in the hash: a run stored before
    they existed keeps its directory and resumes."""
    default = RunConfig()
    assert default.digest() == RunConfig.model_validate({"market": {}}).digest()
    # the hash the defaults have had since issue 66 (054f1646c10b768d from issue 63's user,
    # cd9fc251cb907590 from issue 51's user fitted to real people, 64a042242fcdc509 from
    # issue 45's claim rule, 837cc76e3fef82be from before mechanisms)
    assert default.digest().startswith("7a559953f7d1ec55")
    decayed = RunConfig.model_validate({"market": {"reputation": {"mechanism": "decay"}}})
    assert decayed.digest() != default.digest()
    for later in (
        {"market": {"platform_strategy": "adaptive"}},
        {"market": {"entrants": "strict@10"}},
        {"agents": {"ranker": {"noise": "gumbel"}}},
        {"agents": {"ranker": {"position_weight": 0.1}}},
    ):  # every setting added since counts once it is set
        assert RunConfig.model_validate(later).digest() != default.digest(), later


@pytest.mark.parametrize("bad", [0.0, 1.0])
def test_decay_must_forget_something_and_keep_something(bad: float) -> None:
    with pytest.raises(ValueError, match="reputation_decay"):
        RunConfig.model_validate({"market": {"reputation_decay": bad}})


def test_the_older_form_reads_as_the_parameter_form_and_keeps_its_stored_hash() -> None:
    """``market.reputation`` names the mechanism with its parameters; the older pair of
    settings is read into it (one identity), and a run stored under the older form is still
    known by its hash (``tests/test_hashing.py`` holds them)."""
    new = RunConfig.model_validate(
        {"market": {"reputation": {"mechanism": "decay", "params": {"rate": 0.5}}}}
    )
    with pytest.warns(DeprecationWarning):
        old = RunConfig.model_validate(
            {"market": {"reputation_mechanism": "decay", "reputation_decay": 0.5}}
        )
    assert new == old and new.digest() == old.digest()
    assert len(new.older_digests()) == 1 and new.older_digests()[0] != new.digest()
    other = {"market": {"reputation": {"mechanism": "decay", "params": {"rate": 0.6}}}}
    assert RunConfig.model_validate(other).digest() != new.digest()  # parameters are hashed


@pytest.mark.parametrize(
    ("market", "message"),
    [
        ({"reputation": {"mechanism": "decay", "params": {"rate": 1.5}}}, "'decay': params.rate"),
        ({"reputation": {"mechanism": "decay", "params": {"speed": 1}}}, "params.speed: Extra"),
        ({"reputation": {"mechanism": "window", "params": {"rate": 0.5}}}, "'window': params"),
        (
            {"reputation": {"mechanism": "beta"}, "reputation_mechanism": "decay"},
            "drop reputation_mechanism",
        ),
    ],
)
def test_bad_parameters_are_refused_naming_the_mechanism(market: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        RunConfig.model_validate({"market": market})


def test_a_newcomer_penalty_shows_low_records_before_a_platforms_own_and_fades_under_decay() -> (
    None
):
    assert [r.note for r in shown("beta", [], newcomer_low=2)] == [PENALTY_NOTE] * 2
    params = RankerParams()
    fresh = credibility(shown("beta", [], newcomer_low=2), True, params)
    assert fresh < params.credence  # a new identity starts below an unknown one
    assert credibility(shown("beta", [HIGH] * 8, newcomer_low=2), True, params) > fresh
    weights = [r.weight for r in shown("decay", [HIGH] * 3, rate=0.5, newcomer_low=1)]
    assert weights == [0.125, 0.25, 0.5, 1.0]  # the penalty is the oldest record


def test_a_mechanism_weighs_by_what_the_memory_knows_of_each_record(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``weigh`` gets each record's round, writer and identity, the penalty's first, and
    the reading round: here a weight that halves every round of age and counts a forged
    record at a tenth."""
    seen = []

    @dataclass(frozen=True)
    class ByAge(EveryRecord):
        def weigh(self, records, now, params):
            seen.append((list(records), now))
            return tuple(
                0.5 ** (now - r.written) * (0.1 if r.writer == "forged" else 1.0) for r in records
            )

    monkeypatch.setitem(MECHANISMS._items, "by-age", ByAge("by-age"))
    setting = ReputationSetting(mechanism="by-age", params={"newcomer_low": 1})
    memory = ReputationMemory(window=3, scope="shared", setting=setting)
    first, later = replace(user_request(0), order=2), replace(user_request(1), order=5)
    memory.append(first, "P1", HIGH)
    memory.append(later, "P1", HIGH, writer="forged")
    shown = memory.histories(replace(user_request(2), order=6), ("P1",))["P1"]
    assert [r.weight for r in shown] == [1.0, 0.5**4, 0.5 * 0.1]
    facts, now = seen[-1]
    assert now == 6 and [(f.written, f.writer, f.about) for f in facts] == [
        (6, "penalty", "P1"),
        (2, "user", "P1"),
        (5, "forged", "P1"),
    ]
