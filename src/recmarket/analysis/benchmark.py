"""The reputation benchmark: each attack against each defence at each attackers' share,
with its gain split by cause, what the defence costs an honest market, and the largest
share it tolerates.

- **Gain** (``gain_top1``): the attacking seats' Top-1 share minus the same seats' in the
  honest cell of the same defence (``analysis.attacks``).
- **Gain over the policy** (``gain_over_policy``): minus the same seats' in the
  *policy-only twin*, the cell where each attacking seat presents as its attack presents
  (``Attack.presents``) and does nothing else: what re-entering, switching, forging or extra
  seats add beyond the behaviour. The policy's own gain (``gain_policy``, twin minus
  honest) is the rest. An attack that is nothing but its presentation (inject) is its own
  twin: its gain over the policy is 0 by construction and says so.
- **Honest-market loss**: the defence's cost with no attacker, against the shared window
  (the records anyone writes, weighed alike: the system the defences amend): the fall in
  target purchase and the rise in regret from the baseline's honest cell to the defence's,
  and, where the spec has a cell with an honest late entrant, the rise in the rounds the
  entrant waits for its first Top-1 (censored at the schedule's end).
- **Tolerated share**: the largest attackers' share up to which no share's gain shows (its
  interval covers 0, or lies below it: an attack that costs the attacker is tolerated too);
  0 where a gain shows at the smallest share already. A reading of the measured shares, not
  a threshold between them. ``tolerated_share_over_policy`` reads the gain over the
  policy-only twin the same way: what a defence tolerates of the gaming itself, where the
  behaviour (exaggerating, say) gains under every defence.

Each gain and loss has a 95% interval made as ``analysis.attacks`` makes them (the
two-stage bootstrap over seeds and the unit the cells' episodes share, or a t over seeds),
except the entrant's wait: a paired t over the (seed, domain) units, whose method it names.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import numpy as np
from scipy import stats

from recmarket.analysis.attacks import attackers, change, defence, gain, interval_columns
from recmarket.analysis.bootstrap import Interval, Row
from recmarket.catalogue.attacks import AttackSetting
from recmarket.config import RunConfig
from recmarket.experiments.units import coarsest, memory_unit
from recmarket.market.build import seats

Cell = tuple[RunConfig, Sequence[Row]]
NamedCell = tuple[str, RunConfig, Sequence[Row]]  # a cell with its spec's label
COLUMNS = (
    "cell",
    "attack",
    "defence",
    "attacker_share",
    "gain_top1",
    "gain_top1_low",
    "gain_top1_high",
    "gain_over_policy",
    "gain_over_policy_low",
    "gain_over_policy_high",
    "gain_policy",
    "gain_policy_low",
    "gain_policy_high",
    "honest_loss_target_purchase",
    "honest_loss_target_purchase_low",
    "honest_loss_target_purchase_high",
    "honest_loss_regret",
    "honest_loss_regret_low",
    "honest_loss_regret_high",
    "honest_loss_entrant_wait",
    "honest_loss_entrant_wait_low",
    "honest_loss_entrant_wait_high",
    "tolerated_share",
    "tolerated_share_over_policy",
    "interval_method",
    "note",
)


def cell_key(cfg: RunConfig, **market: Any) -> str:
    """The identity of ``cfg``'s cell with the market settings changed (its seed pooled
    over: a cell's seeds are one cell)."""
    changed = cfg.market.model_copy(update=market)
    return cfg.model_copy(update={"market": changed, "seed": 0}).digest()


def twin_attacks(cfg: RunConfig) -> dict[str, AttackSetting] | None:
    """The attacks of an attack cell's policy-only twin: every attacking seat presenting as
    its attack presents, with nothing else (none where that is its composition's policy:
    the honest cell). None where an attack is nothing but its presentation: its own twin."""
    policies = cfg.market.policies
    ids = [s.platform_id for s in seats(cfg.market)]
    twins: dict[str, AttackSetting] = {}
    for seat, setting in cfg.market.attacks.items():
        made = setting.made
        if made.is_its_presentation():
            return None
        policy = policies[ids.index(seat)]
        presents = made.presents(policy, setting.built())
        if presents != policy:
            twins[seat] = AttackSetting(attack="null", params={"policy": presents})
    return twins


def twin_key(cfg: RunConfig) -> str | None:
    """The identity of an attack cell's policy-only twin (``twin_attacks``); None where the
    attack is its own."""
    twins = twin_attacks(cfg)
    return None if twins is None else cell_key(cfg, attacks=twins)


def baseline_key(cfg: RunConfig) -> str:
    """The identity of the undefended honest cell an honest cell is measured against: the
    shared window, no proof of purchase, the same entrants."""
    market = cfg.market.model_copy(
        update={"attacks": {}, "reputation": None, "proof_of_purchase": False}
    )
    undefended = cfg.model_copy(
        update={"condition": "local-rep", "reputation_scope": "shared", "market": market}
    )
    return cell_key(undefended)


def attacker_share(cfg: RunConfig) -> float:
    """The attacking owners' seats over every seat of the market."""
    every = seats(cfg.market)
    owned = {s.platform_id for s in every if s.owned_by in cfg.market.attacks}
    return round(len(owned) / len(every), 3)


def benchmark_table(cells: Sequence[NamedCell]) -> list[dict[str, Any]]:
    """One row per attack cell, named by its label (two cells of one attack and defence
    are told apart): attack, defence, attackers' share, the split gains, the defence's
    honest-market losses and the tolerated share, each with its interval."""
    index = _Index([(cfg, rows) for _, cfg, rows in cells])
    attacked = [(name, cfg, rows, twin_key(cfg)) for name, cfg, rows in cells if cfg.market.attacks]
    twins = {twin for *_, twin in attacked}
    losses: dict[str, dict[str, Any]] = {}  # a defence's, the same for all its attack rows
    table = []
    for name, cfg, rows, twin in attacked:
        if cell_key(cfg) in twins:  # a twin is a reference, not an attack
            continue
        found = attackers(cfg)
        row: dict[str, Any] = {
            "cell": name,
            "attack": "+".join(sorted({attack for attack, _, _ in found})),
            "defence": defence(cfg),
            "attacker_share": attacker_share(cfg),
            "note": "",
        }
        owned = frozenset().union(*(o for _, _, o in found))
        plain = cell_key(cfg, attacks={})
        if plain not in losses:
            losses[plain] = _losses(cfg, plain, index)
        table.append(row | _gains(cfg, rows, owned, twin, index) | losses[plain])
    tolerated_shares(table)
    return sorted(table, key=lambda r: (r["attack"], r["defence"], r["attacker_share"], r["cell"]))


class _Index:
    """The cells by identity (seeds pooled), and the honest cells with entrants by the
    identity they have without them."""

    def __init__(self, cells: Sequence[Cell]) -> None:
        self.cells: dict[str, Cell] = {}
        self.entrants: dict[str, Cell] = {}
        for cfg, rows in cells:
            self.cells.setdefault(cell_key(cfg), (cfg, rows))
            if cfg.market.entrants and not cfg.market.attacks:
                self.entrants.setdefault(cell_key(cfg, entrants=()), (cfg, rows))


def _gains(
    cfg: RunConfig, rows: Sequence[Row], owned: frozenset[str], key: str | None, index: _Index
) -> dict[str, Any]:
    """The attack's gain over the honest cell, over its twin (``key``: None where the
    attack is its own), and the twin's over the honest cell."""
    honest = index.cells.get(cell_key(cfg, attacks={}))
    if honest is None:
        return {"note": "no honest cell of this defence"} | _blank("gain_top1")
    unit = coarsest([memory_unit(honest[0]), memory_unit(cfg)])
    top1 = gain(honest[1], rows, "top1_platform", owned, unit)
    out: dict[str, Any] = {**interval_columns("gain_top1", top1), "interval_method": top1.method}
    if key is None:
        zero = Interval(0.0, 0.0, 0.0, "0 by construction: the attack is its presentation", 0, {})
        return (
            out | interval_columns("gain_over_policy", zero) | interval_columns("gain_policy", top1)
        )
    twin = index.cells.get(key)
    if twin is None:
        return out | _blank("gain_over_policy") | {"note": "no policy-only twin cell"}
    over = gain(twin[1], rows, "top1_platform", owned, unit)
    policy = gain(honest[1], twin[1], "top1_platform", owned, unit)
    return (
        out | interval_columns("gain_over_policy", over) | interval_columns("gain_policy", policy)
    )


def _losses(cfg: RunConfig, plain: str, index: _Index) -> dict[str, Any]:
    """The defence's cost in an honest market (``plain``, its honest cell) against the
    shared window's."""
    undefended = baseline_key(cfg)
    honest, base = index.cells.get(plain), index.cells.get(undefended)
    if honest is None or base is None:
        return _blank("honest_loss_target_purchase") | _blank("honest_loss_regret")
    unit = coarsest([memory_unit(honest[0]), memory_unit(base[0])])
    bought = change(honest[1], base[1], "target_purchased", unit)  # baseline minus defence
    regret = change(base[1], honest[1], "regret", unit)  # defence minus baseline
    out = interval_columns("honest_loss_target_purchase", bought)
    out |= interval_columns("honest_loss_regret", regret)
    entrant, entrant_base = index.entrants.get(plain), index.entrants.get(undefended)
    if entrant is not None and entrant_base is not None:
        out |= interval_columns("honest_loss_entrant_wait", entrant_wait(entrant_base, entrant))
    return out


def first_top1_waits(cfg: RunConfig, rows: Sequence[Row]) -> dict[tuple[Any, str], float]:
    """Per (seed, domain): the rounds from the first entrant's entry to its first Top-1, or
    to the schedule's end where it never got one (censored)."""
    first = cfg.market.entrants[0]
    entrant = cfg.market.entrant_ids[0]
    waits: dict[tuple[Any, str], float] = {}
    last: dict[tuple[Any, str], int] = defaultdict(int)
    for row in rows:
        unit = (row.get("replicate"), row["domain"])
        last[unit] = max(last[unit], row["ord"])
        if row.get("top1_platform") == entrant and row["ord"] >= first.after_rounds:
            waits[unit] = min(waits.get(unit, math.inf), row["ord"] - first.after_rounds)
    return {u: waits.get(u, last[u] + 1 - first.after_rounds) for u in last}


def entrant_wait(base: Cell, defended: Cell) -> Interval:
    """The defended cell's entrant wait minus the baseline's, paired by (seed, domain),
    with a t interval over those units."""
    a, b = first_top1_waits(*base), first_top1_waits(*defended)
    units = sorted(set(a) & set(b), key=str)
    diffs = np.array([b[u] - a[u] for u in units], dtype=float)
    if len(diffs) < 2:
        nan = float("nan")
        return Interval(float(diffs.mean()) if len(diffs) else nan, nan, nan, "one unit", 0, {})
    mean, se = float(diffs.mean()), float(diffs.std(ddof=1) / math.sqrt(len(diffs)))
    half = float(stats.t.ppf(0.975, len(diffs) - 1)) * se
    design = f"paired t over {len(diffs)} seed x domain units"
    return Interval(mean, mean - half, mean + half, design, 0, {}, df=len(diffs) - 1)


def tolerated_shares(table: list[dict[str, Any]]) -> None:
    """Each row's tolerated shares, of the gain and of the gain over the policy: over its
    attack and defence's shares, ascending, the largest up to which no gain shows (every
    interval reaches 0 or below); blank where a share has no interval to read."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for row in table:
        groups[row["attack"], row["defence"]].append(row)
    for group in groups.values():
        ordered = sorted(group, key=lambda r: r["attacker_share"])
        for gain_column, column in (
            ("gain_top1", "tolerated_share"),
            ("gain_over_policy", "tolerated_share_over_policy"),
        ):
            tolerated = _tolerated(ordered, gain_column)
            for row in group:
                row[column] = tolerated


def _tolerated(ordered: list[dict[str, Any]], gain_column: str) -> float | str:
    tolerated: float | str = 0.0
    for row in ordered:
        low = row.get(f"{gain_column}_low")
        if not isinstance(low, float) or math.isnan(low):
            return ""  # a share without an interval: no reading
        if low > 0.0:  # a gain shows
            break
        tolerated = row["attacker_share"]
    return tolerated


def _blank(name: str) -> dict[str, Any]:
    return {name: "", f"{name}_low": "", f"{name}_high": ""}
