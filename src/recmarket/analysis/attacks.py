"""What an attack on reputation gains, and what users lose to it.

An attack cell is paired with the honest cell of the same defence: the same settings, seeds
and requests with no seat playing an attack. The attacker's *gain* is its Top-1 share and
purchase share (counted over every seat it owns: a Sybil owner's copies too) minus those of
the same seat playing honestly, episode by episode; what users lose shows in the *change* of
target purchase, off-target purchase and regret (attack cell minus honest cell: a fall in
target purchase or a rise in the other two is a loss). Each carries a 95% interval from the
two-stage bootstrap (``analysis.bootstrap``): seeds, then within each seed and domain the
unit the two cells' episodes depend on together, which is the whole domain where the
attacker reacts to what it observes (its conduct couples every user's episodes), so there
the interval rests on the seeds alone.

How an attack acted is counted from the records: the names the attacker showed and how long
each lived, the share of episodes after which records were forged, and the share of the
attacker's proposals presented otherwise than honestly (bait-and-switch's switch).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from recmarket.analysis.bootstrap import (
    Interval,
    Metric,
    Row,
    difference,
    interval,
    level_of,
    mean_of,
    ratio,
)
from recmarket.catalogue.conditions import condition
from recmarket.config import RunConfig
from recmarket.experiments.units import coarsest, memory_unit
from recmarket.market.build import seats
from recmarket.market.compositions import platform_ids

HONEST = "honest"


def attackers(cfg: RunConfig) -> list[tuple[str, str, frozenset[str]]]:
    """(attack, seat, every seat it owns) of each attacking seat of the cell, by seat; none
    for an honest cell."""
    every = seats(cfg.market)
    return [
        (setting.attack, seat, frozenset(s.platform_id for s in every if s.owned_by == seat))
        for seat, setting in sorted(cfg.market.attacks.items())
    ]


def attacker(cfg: RunConfig) -> tuple[str, str, frozenset[str]] | None:
    """(attack, seat, every seat it owns) of the cell's attacker; None for an honest cell.
    Several attacking seats are one joint attacker, labelled by each (``forge@P1+sybil@P4``,
    seats ``P1+P4``), owning all their seats: a cell's shares are then the attackers'
    together, and ``attack_table`` reports each seat on its own row."""
    found = attackers(cfg)
    if len(found) <= 1:
        return found[0] if found else None
    label = "+".join(f"{attack}@{seat}" for attack, seat, _ in found)
    seats_ = "+".join(seat for _, seat, _ in found)
    return label, seats_, frozenset().union(*(owned for _, _, owned in found))


def defence(cfg: RunConfig) -> str:
    """The cell's defence in words: the condition, and under reputation its scope, its
    mechanism with any parameters, the wait new names serve and proof of purchase."""
    if not condition(cfg.condition).reputation:
        return f"{cfg.condition} (no records)"
    mechanism = cfg.market.reputation_in_use
    params = ", ".join(f"{k}={v}" for k, v in sorted(mechanism.params.items()))
    said = f"{cfg.reputation_scope} {mechanism.mechanism}" + (f" ({params})" if params else "")
    if cfg.market.newcomer_wait:
        said += f", new names wait {cfg.market.newcomer_wait} rounds"
    return said + (", proof of purchase" if cfg.market.proof_of_purchase else "")


def honest_twin(cfg: RunConfig) -> str:
    """What identifies the honest cell an attack cell is paired with: its settings without
    the attacks (the seed is pooled over)."""
    market = cfg.market.model_copy(update={"attacks": {}})
    return cfg.model_copy(update={"market": market, "seed": 0}).digest()


def gain(
    honest: Sequence[Row], attacked: Sequence[Row], column: str, owned: frozenset[str], unit: str
) -> Interval:
    """The attacker's share of ``column`` (top1_platform, purchased_platform) in the attack
    cell minus the same seat's in the honest one."""

    def share(row: Row) -> float:
        return float(row.get(column) in owned)

    return interval([honest, attacked], mean_of(share), difference, unit)


def change(honest: Sequence[Row], attacked: Sequence[Row], column: str, unit: str) -> Interval:
    """The change in a user outcome (target purchase, off-target purchase, regret) from the
    honest cell to the attack cell, over the episodes that have it (regret: those that
    reached a decision)."""

    def parts(row: Row) -> tuple[float, float]:
        found = row.get(column)
        return (0.0, 0.0) if found is None else (float(found), 1.0)

    return interval([honest, attacked], Metric(parts, ratio), difference, unit)


def churn(rows: Sequence[Row], seat: str) -> tuple[float, float]:
    """Names the attacker showed per seed and domain, on average, and the rounds each name
    lived."""
    names: dict[tuple[Any, str], set[str]] = defaultdict(set)
    rounds: dict[tuple[Any, str], int] = defaultdict(int)
    for row in rows:
        key = (row.get("replicate"), row["domain"])
        shown = json.loads(row.get("identities") or "{}")
        names[key].add(shown.get(seat, seat))
        rounds[key] += 1
    if not names:
        return 0.0, 0.0
    counts = [len(n) for n in names.values()]
    lives = [rounds[k] / len(n) for k, n in names.items()]
    return sum(counts) / len(counts), sum(lives) / len(lives)


def forged_share(rows: Sequence[Row], seat: str) -> float:
    """The share of episodes after which ``seat`` forged: a forged record praising the name
    it showed then (a forger praises itself whenever it forges, and damns a rival only
    beside that)."""

    def forged(row: Row) -> bool:
        name = json.loads(row.get("identities") or "{}").get(seat, seat)
        written = json.loads(row.get("written") or "[]")
        return any(w[3] == "forged" and w[0] == name and w[1] == "high" for w in written)

    return sum(map(forged, rows)) / max(len(rows), 1)


def switched_share(rows: Sequence[Row], seat: str, honest_policy: str) -> float:
    """The share of the attacker's recorded choices that were not its honest policy (0 where
    it records none: an attack that does not react)."""
    played = [
        json.loads(r["lessons"])[seat][0]
        for r in rows
        if r.get("lessons") and seat in json.loads(r["lessons"])
    ]
    return sum(arm.split(":")[0] != honest_policy for arm in played) / max(len(played), 1)


LEVELS = (("attacker_top1", "top1_platform"), ("attacker_purchase", "purchased_platform"))
LEVEL_COLUMNS = (
    "attack",
    "defence",
    *(f"{name}{end}" for name, _ in LEVELS for end in ("", "_low", "_high")),
    "identities",
)


def attacker_levels(cfg: RunConfig, rows: Sequence[Row]) -> dict[str, Any]:
    """A cell's attack, its defence and the attacker's own Top-1 and purchase shares with
    95% intervals (blank for a cell without one): the columns of ``cells.csv``."""
    found = attacker(cfg)
    if found is None:
        return dict.fromkeys(LEVEL_COLUMNS, "")
    attack, seat, owned = found
    levels: dict[str, Any] = {"attack": attack, "defence": defence(cfg)}
    for name, column in LEVELS:

        def share(row: Row, column: str = column) -> float:
            return float(row.get(column) in owned)

        found_share = interval([rows], mean_of(share), level_of, memory_unit(cfg))
        levels |= interval_columns(name, found_share)
    return levels | {"identities": round(churn(rows, seat)[0], 3)}


def attack_table(
    cells: Sequence[tuple[str, RunConfig, Sequence[Row]]],
) -> list[dict[str, Any]]:
    """One row per attacking seat of each attack cell (a cell with several attacking seats
    gives each its own row, ``attack@seat``), named by the cell's label, so two cells that
    attack one seat are told apart: attack, seat, defence, gains and losses with
    intervals, churn. An attack cell without an honest twin of the same defence is listed
    with its gains blank and a note saying so."""
    honest: dict[str, tuple[RunConfig, Sequence[Row]]] = {
        honest_twin(cfg): (cfg, rows) for _, cfg, rows in cells if not cfg.market.attacks
    }
    table = []
    for name, cfg, rows in cells:
        found = attackers(cfg)
        twin = honest.get(honest_twin(cfg))
        for attack, seat, owned in found:
            label = attack if len(found) == 1 else f"{attack}@{seat}"
            head = {"cell": name, "attack": label, "seat": seat, "defence": defence(cfg)}
            if twin is None:
                table.append(head | {"note": "no honest twin (its settings with no attack)"})
            else:
                table.append(head | _attack_row(twin, cfg, rows, seat, owned))
    return sorted(
        table, key=lambda r: (r["attack"] != "null", r["attack"], r["defence"], r["cell"])
    )


def _attack_row(
    twin: tuple[RunConfig, Sequence[Row]],
    cfg: RunConfig,
    rows: Sequence[Row],
    seat: str,
    owned: frozenset[str],
) -> dict[str, Any]:
    """One attacking seat's gains over its honest twin, the users' losses, and how it acted."""
    base_cfg, base = twin
    unit = coarsest([memory_unit(base_cfg), memory_unit(cfg)])
    top1 = gain(base, rows, "top1_platform", owned, unit)
    bought = gain(base, rows, "purchased_platform", owned, unit)
    identities, lifetime = churn(rows, seat)
    policy = base_cfg.market.policies[platform_ids(cfg.market.n_platforms).index(seat)]
    return {
        **interval_columns("gain_top1", top1),
        **interval_columns("gain_purchase", bought),
        **interval_columns("change_target_purchase", change(base, rows, "target_purchased", unit)),
        **interval_columns("change_off_target", change(base, rows, "off_target_purchase", unit)),
        **interval_columns("change_regret", change(base, rows, "regret", unit)),
        "identities": round(identities, 3),
        "identity_rounds": round(lifetime, 1),
        "forged_share": round(forged_share(rows, seat), 4),
        "switched_share": round(switched_share(rows, seat, policy), 4),
        "seats_owned": len(owned),
        "interval": top1.method,
        "note": "",
    }


def interval_columns(name: str, found: Interval) -> dict[str, float]:
    """An interval as a table's three columns (``name``, ``name_low``, ``name_high``),
    rounded to four places."""
    return {
        name: round(found.estimate, 4),
        f"{name}_low": round(found.low, 4),
        f"{name}_high": round(found.high, 4),
    }
