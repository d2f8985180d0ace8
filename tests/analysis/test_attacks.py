"""The attack table: each attack cell paired with its defence's honest cell, gains over every
seat the attacker owns, intervals that say how they were made. No test says which attack
gains."""

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from recmarket.analysis.attacks import attack_table, attacker, attacker_levels, defence
from recmarket.config import RunConfig
from recmarket.report.attack_figures import attacks
from recmarket.report.build import drawn_figure
from recmarket.report.data import Cell, compact_rows
from recmarket.report.ticks import overlaps
from recmarket.run.runner import run
from recmarket.run.store import RunStore

BASE: dict[str, Any] = {
    "domains": ["Video_Games"],
    "condition": "local-rep",
    "reputation_scope": "shared",
    "episodes": {"requests": 24, "users_per_profile": 1},
}
ATTACKS = {
    "honest": {},
    "null": {"P4": {"attack": "null"}},
    "sybil": {"P4": {"attack": "sybil", "params": {"seats": 3}}},
    "whitewash": {"P4": {"attack": "whitewash", "params": {"window": 6, "below": 0.34}}},
}
SEEDS = (1, 2)


def pooled(
    name: str, attacks: dict[str, Any], factory: pytest.TempPathFactory
) -> tuple[RunConfig, list]:
    """A cell with ``attacks`` played at every seed, its seeds' rows pooled as the report
    pools them."""
    rows = []
    for seed in SEEDS:
        cfg = RunConfig.model_validate({**BASE, "seed": seed, "market": {"attacks": attacks}})
        out = factory.mktemp(f"{name}-{seed}")
        run(cfg, out).store.close()
        with RunStore.read(out) as store:
            rows += compact_rows(store.episodes(), {"replicate": seed})
    return cfg, rows


@pytest.fixture(scope="module")
def cells(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[RunConfig, list]]:
    """Each attack at two seeds."""
    return [pooled(name, played, tmp_path_factory) for name, played in ATTACKS.items()]


def named(cells: list) -> list[tuple[str, RunConfig, list]]:
    return [(f"cell-{i}", cfg, rows) for i, (cfg, rows) in enumerate(cells)]


def by_attack(cells: list) -> dict[str, dict[str, Any]]:
    return {row["attack"]: row for row in attack_table(named(cells))}


def test_every_attack_cell_is_paired_with_the_honest_cell_of_its_defence(cells: list) -> None:
    table = by_attack(cells)
    assert set(table) == {"null", "sybil", "whitewash"}  # the honest cell is the baseline
    assert {r["defence"] for r in table.values()} == {"shared window"}
    alone = [c for c in cells if attacker(c[0]) is not None]
    listed = attack_table(named(alone))  # no honest twin: listed, never a guessed baseline
    assert [r["attack"] for r in listed] == ["null", "sybil", "whitewash"]
    assert all(r["note"].startswith("no honest twin") and "gain_top1" not in r for r in listed)
    for row in table.values():  # one history per domain: a t-interval over the two seeds
        assert row["interval"] == "t over 2 seeds, df 1 (cluster-domain x 2 seeds)"


def test_the_null_attacker_gains_nothing_by_construction(cells: list) -> None:
    null = by_attack(cells)["null"]
    for measure in ("gain_top1", "gain_purchase", "change_target_purchase", "change_regret"):
        assert null[measure] == null[f"{measure}_low"] == null[f"{measure}_high"] == 0.0


def test_a_gain_is_the_attackers_share_over_every_seat_it_owns_minus_the_honest_seats(
    cells: list,
) -> None:
    honest = next(rows for cfg, rows in cells if attacker(cfg) is None)
    sybil_cfg, sybil = next(c for c in cells if (attacker(c[0]) or ("",))[0] == "sybil")
    _, _, owned = attacker(sybil_cfg)
    assert owned == {"P4", "P7", "P8"}
    by_hand = sum(r["top1_platform"] in owned for r in sybil) / len(sybil)
    by_hand -= sum(r["top1_platform"] == "P4" for r in honest) / len(honest)
    row = by_attack(cells)["sybil"]
    assert row["gain_top1"] == pytest.approx(by_hand, abs=1e-4) and row["seats_owned"] == 3
    assert row["gain_top1_low"] <= row["gain_top1"] <= row["gain_top1_high"]


def test_churn_counts_the_names_a_whitewasher_showed_and_how_long_each_lived(
    cells: list,
) -> None:
    """Per seed (24 rounds of one domain), names x rounds each lived = 24; the row gives
    the means over seeds of both, whose product is 24 only where every seed showed as many
    names (and more otherwise: the mean of 24 / n is at least 24 over the mean of n)."""
    row = by_attack(cells)["whitewash"]
    _, rows = cells[list(ATTACKS).index("whitewash")]
    names = [
        len(
            {
                json.loads(r["identities"] or "{}").get("P4", "P4")
                for r in rows
                if r["replicate"] == s
            }
        )
        for s in SEEDS
    ]
    assert row["identities"] == pytest.approx(np.mean(names), abs=1e-3) and min(names) >= 1
    assert row["identity_rounds"] == pytest.approx(np.mean([24 / n for n in names]), abs=0.05)
    assert row["switched_share"] == 1.0  # it presents as Exaggeration, the seat as Strict


def test_cells_csv_columns_and_the_report_table(cells: list, tmp_path: Path) -> None:
    cfg, rows = cells[2]
    levels = attacker_levels(cfg, rows)
    assert levels["attack"] == "sybil" and levels["defence"] == defence(cfg)
    assert levels["attacker_top1_low"] <= levels["attacker_top1"] <= levels["attacker_top1_high"]
    assert set(attacker_levels(*cells[0]).values()) == {""}  # the honest cell: blank
    report_cells = [
        Cell("reputation-attacks", name, "attacks", tmp_path, rows, cfg)
        for name, (cfg, rows) in zip(ATTACKS, cells, strict=True)
    ]
    fig, table = drawn_figure(attacks, report_cells)
    assert overlaps(fig) == []  # as the report saves it
    assert [r["attack"] for r in table] == ["null", "sybil", "whitewash"]
    needed = {"attack", "defence", "gain_top1", "gain_top1_low", "gain_top1_high"}
    needed |= {"gain_purchase", "gain_purchase_low", "gain_purchase_high", "identities"}
    assert needed <= set(table[0])


def test_each_attacking_seat_of_a_cell_is_its_own_row(
    cells: list, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Two seats attacking in one cell: each seat's gain counts its own seats alone, and a
    forged record is credited to the seat that forged it; the cell's label names both."""
    both = {
        "P1": {"attack": "forge", "params": {"share": 0.5}},
        "P4": {"attack": "sybil", "params": {"seats": 2}},
    }
    cfg, rows = pooled("both", both, tmp_path_factory)
    assert attacker(cfg) == ("forge@P1+sybil@P4", "P1+P4", frozenset({"P1", "P4", "P7"}))
    table = {r["attack"]: r for r in attack_table(named([cells[0], (cfg, rows)]))}
    assert set(table) == {"forge@P1", "sybil@P4"}
    assert table["forge@P1"]["seat"] == "P1" and table["forge@P1"]["seats_owned"] == 1
    assert table["sybil@P4"]["seats_owned"] == 2
    assert table["forge@P1"]["forged_share"] > 0 and table["sybil@P4"]["forged_share"] == 0


def test_two_cells_attacking_one_seat_are_told_apart_by_their_cell(cells: list) -> None:
    honest = next(c for c in cells if attacker(c[0]) is None)
    sybil = next(c for c in cells if (attacker(c[0]) or ("",))[0] == "sybil")
    table = attack_table([("honest", *honest), ("sybil-a", *sybil), ("sybil-b", *sybil)])
    assert [(r["cell"], r["attack"], r["seat"]) for r in table] == [
        ("sybil-a", "sybil", table[0]["seat"]),
        ("sybil-b", "sybil", table[0]["seat"]),
    ]
