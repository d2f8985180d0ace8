"""Records per platform per memory set, and identical cells, from hand-built episodes."""

from recmarket.analysis.records import (
    identical_groups,
    record_distribution,
    records_per_history,
)
from recmarket.config import RunConfig
from tests.fixtures import episode_row


def rows() -> list[dict]:
    made = []
    for ord_, (user, profile, platform) in enumerate(
        [(0, "a", "P1"), (0, "a", "P1"), (1, "a", "P2"), (2, "b", "P1"), (2, "b", None)]
    ):
        made.append(
            episode_row(
                "D",
                ord=ord_,
                sim_user=user,
                profile=profile,
                rep_label="high" if platform else None,
                rep_platform=platform,
            )
        )
    return made


def config(scope: str) -> RunConfig:
    return RunConfig.model_validate(
        {"condition": "local-rep", "reputation_scope": scope, "market": {"n_platforms": 3}}
    )


def test_every_platform_of_every_memory_set_is_counted_zeros_included() -> None:
    # users 0, 1, 2 hold (P1, P2, P3) records (2, 0, 0), (0, 1, 0), (1, 0, 0)
    assert sorted(records_per_history(rows(), config("local"))) == [0] * 6 + [1, 1, 2]
    # profile a holds P1: 2, P2: 1; profile b holds P1: 1
    assert sorted(records_per_history(rows(), config("style"))) == [0, 0, 0, 1, 1, 2]
    assert list(records_per_history(rows(), config("shared"))) == [3, 1, 0]


def test_the_distribution_says_how_many_histories_passed_the_window() -> None:
    cfg = config("shared").model_copy(
        update={"market": config("shared").market.model_copy(update={"memory_window": 2})}
    )
    summary = record_distribution(rows(), cfg)
    assert summary["histories"] == 3 and summary["max"] == 3
    assert summary["window"] == 2 and abs(summary["over_window"] - 1 / 3) < 1e-3


def test_identical_cells_are_found_whatever_their_names() -> None:
    changed = rows()
    changed[1] = {**changed[1], "rep_label": "low"}
    groups = identical_groups({"window": rows(), "beta": rows(), "decay": changed})
    assert groups == [["window", "beta"]]
