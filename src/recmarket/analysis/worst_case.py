"""Each defence's worst case beside its menu's: the reputation benchmark's rows read with the
winners of its searches (``study.benchmark_search``), each re-measured on held-out seeds.

- **Worst found** (per attack family and defence): the search winner's gain over its
  policy-only twin in the attackers' Top-1 share, re-measured on seeds the search never used,
  with its 95% interval as the benchmark makes one; the search's own reading of it beside
  (``worst_found_search``), which the winner's curse inflates.
- **Menu worst** of a family under a defence: its largest gain over the policy among the
  menu's rows (every share). **Worst case**: the larger of the menu worst and the worst
  found, so a search that finds less than the menu's largest share leaves the menu's.
- **Ranks** (``rank_menu``, ``rank_worst``): the defences ordered by their largest menu worst,
  and by their largest worst case, over every family searched together (``attack`` is
  ``EVERY``) and over each family alone; 1 the smallest gain, equals sharing the smaller
  rank. Ranks read point estimates: a change of rank between defences
  whose intervals overlap is no detected difference. ``worst_above_menu`` says where the
  worst case's interval lies wholly above the menu worst's (they come from disjoint seeds).
- **Tolerated share, worst case**: the menu's tolerated share of the gain over the policy
  (``analysis.benchmark``), lowered where the worst found shows a gain (its interval above 0)
  to the largest measured share below the winner's, or 0: a share the search broke is no
  longer tolerated. Blank where the menu's has no reading.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from scipy.stats import rankdata

WORST_FOUND_COLUMNS = (
    "worst_found",
    "worst_found_low",
    "worst_found_high",
    "worst_found_search",
    "worst_found_share",
    "worst_found_parameters",
    "tolerated_share_worst",
)
RANK_COLUMNS = (
    "attack",
    "defence",
    "menu_worst",
    "menu_worst_low",
    "menu_worst_high",
    "menu_worst_attack",
    "menu_worst_share",
    "rank_menu",
    "worst_case",
    "worst_case_low",
    "worst_case_high",
    "worst_case_attack",
    "worst_case_share",
    "worst_case_source",
    "rank_worst",
    "rank_change",
    "worst_above_menu",
    "tolerated_share_menu",
    "tolerated_share_worst",
)
_GAIN = "gain_over_policy"


def _number(value: Any) -> float:
    return float(value) if isinstance(value, int | float) else math.nan


def add_worst_found(table: list[dict[str, Any]], found: Sequence[Mapping[str, Any]]) -> None:
    """Each benchmark row of a searched family and defence gains the worst found and the
    tolerated share it leaves; other rows get the columns blank."""
    by_key = {(w["attack"], w["defence_label"]): w for w in found}
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for row in table:
        groups.setdefault((row["attack"], row["defence"]), []).append(row)
    for key, rows in groups.items():
        w = by_key.get(key)
        columns = dict.fromkeys(WORST_FOUND_COLUMNS, "") if w is None else _found(w, rows)
        for row in rows:
            row.update(columns)


def _found(w: Mapping[str, Any], rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    return {
        "worst_found": w["gain_heldout"],
        "worst_found_low": w["gain_heldout_low"],
        "worst_found_high": w["gain_heldout_high"],
        "worst_found_search": w["gain_search"],
        "worst_found_share": w["attacker_share"],
        "worst_found_parameters": w["parameters"],
        "tolerated_share_worst": _tolerated_worst(w, rows),
    }


def _tolerated_worst(w: Mapping[str, Any], rows: Sequence[Mapping[str, Any]]) -> float | str:
    menu = rows[0].get("tolerated_share_over_policy", "")
    if not isinstance(menu, float):
        return ""
    low = _number(w["gain_heldout_low"])
    if math.isnan(low) or low <= 0.0:  # the worst found shows no gain: the menu's reading
        return menu
    below = [r["attacker_share"] for r in rows if r["attacker_share"] < w["attacker_share"]]
    return min(menu, max(below, default=0.0))


EVERY = "every searched family"  # the ranking over the families together


def worst_case_ranks(
    table: Sequence[Mapping[str, Any]], found: Sequence[Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """One ranking of the defences over every searched family together, then one for each
    family: per defence its menu worst and its worst case, each with its interval, family
    and share, their ranks, and the tolerated shares."""
    families = sorted({w["attack"] for w in found})
    by_key = {(w["attack"], w["defence_label"]): w for w in found}
    out = []
    for label, ranked in ((EVERY, families), *((f, [f]) for f in families)):
        ranking = [
            row
            for defence in sorted({r["defence"] for r in table})
            if (row := _defence(table, by_key, defence, ranked)) is not None
        ]
        _rank(ranking)
        out += [{"attack": label} | row for row in ranking]
    return [{c: row.get(c, "") for c in RANK_COLUMNS} for row in out]


def _defence(
    table: Sequence[Mapping[str, Any]],
    by_key: Mapping[tuple[str, str], Mapping[str, Any]],
    defence: str,
    families: Sequence[str],
) -> dict[str, Any] | None:
    """A defence's menu worst and worst case over ``families`` (None: no menu reading)."""
    rows = [r for r in table if r["defence"] == defence and r["attack"] in families]
    menu = [r for r in rows if not math.isnan(_number(r.get(_GAIN)))]
    if not menu:
        return None
    top = max(menu, key=lambda r: r[_GAIN])
    worst = _menu_side(top, "menu")
    for family in families:
        w = by_key.get((family, defence))
        if w is not None and _number(w["gain_heldout"]) > worst["worst_case"]:
            worst = _found_side(w)
    return (
        {"defence": defence}
        | _menu_side(top, "menu", "menu_worst")
        | worst
        | {
            "tolerated_share_menu": _least(rows, "tolerated_share_over_policy"),
            "tolerated_share_worst": _least(rows, "tolerated_share_worst"),
        }
    )


def _menu_side(row: Mapping[str, Any], source: str, name: str = "worst_case") -> dict[str, Any]:
    side = {
        name: row[_GAIN],
        f"{name}_low": row[f"{_GAIN}_low"],
        f"{name}_high": row[f"{_GAIN}_high"],
        f"{name}_attack": row["attack"],
        f"{name}_share": row["attacker_share"],
    }
    return side | ({f"{name}_source": source} if name == "worst_case" else {})


def _found_side(w: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "worst_case": w["gain_heldout"],
        "worst_case_low": w["gain_heldout_low"],
        "worst_case_high": w["gain_heldout_high"],
        "worst_case_attack": w["attack"],
        "worst_case_share": w["attacker_share"],
        "worst_case_source": "search, held-out seeds",
    }


def _least(rows: Sequence[Mapping[str, Any]], column: str) -> float | str:
    """The smallest share a defence tolerates over the families (blank where one has none)."""
    shares = [r.get(column, "") for r in rows]
    if not shares or any(not isinstance(s, float) for s in shares):
        return ""
    return min(shares)


def _rank(rows: list[dict[str, Any]]) -> None:
    for column, rank in (("menu_worst", "rank_menu"), ("worst_case", "rank_worst")):
        ranks = rankdata([r[column] for r in rows], method="min")
        for row, value in zip(rows, ranks, strict=True):
            row[rank] = int(value)
    for row in rows:
        row["rank_change"] = row["rank_worst"] - row["rank_menu"]
        row["worst_above_menu"] = _number(row["worst_case_low"]) > _number(row["menu_worst_high"])
