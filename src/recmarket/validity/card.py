"""The validity card: each measure's value with its 95% interval, resampling people (a
person's held-outs in every domain move together; ``resampling``, the engine every interval
of recmarket is drawn with), beside chance, as ``validity.csv`` and a
page, ``validity.md``, that says which of the report's results rest on which measure."""

from __future__ import annotations

import csv
import math
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TypeVar

import numpy as np
from scipy import stats

from recmarket.files import replaced, write_text_whole
from recmarket.resampling import mean_interval, person_interval, sums_interval
from recmarket.validity.measures import card_measures, finish
from recmarket.validity.ranking import chance_values
from recmarket.validity.scoring import ANY, Key, Scored

COLUMNS = (
    "domain",
    "candidates",
    "pool",
    "measure",
    "protocol",
    "scorer",
    "n_people",
    "n",
    "value",
    "low",
    "high",
    "chance",
    "note",
)
T = TypeVar("T")
ALL = "all"  # the domain column of the rows over every category together
RESAMPLES = 2_000
LEVEL = 0.95
USER_ROLES = ("ranker", "decision", "review")


@dataclass(frozen=True)
class CardRow:
    """One measure of one scorer under one protocol, in one domain (ALL: every one), with
    the held-out among ``candidates`` drawn from ``pool`` (0 and "": a measure no draw of
    negatives changes)."""

    domain: str
    candidates: int
    pool: str
    measure: str
    protocol: str
    scorer: str
    n_people: int
    n: int
    value: float
    low: float
    high: float
    chance: float
    note: str = ""

    def cells(self) -> list[str]:
        """The row as ``validity.csv`` writes it (no value: an empty cell)."""

        def shown(x: float) -> str:
            return "" if math.isnan(x) else f"{x:.4f}"

        return [
            self.domain,
            str(self.candidates) if self.candidates else "",
            self.pool,
            self.measure,
            self.protocol,
            self.scorer,
            str(self.n_people),
            str(self.n),
            *(shown(x) for x in (self.value, self.low, self.high, self.chance)),
            self.note,
        ]

    @classmethod
    def of(
        cls,
        domain: str,
        key: Key,
        people: int,
        n: int,
        value: float,
        ends: tuple[float, float],
        chance: float = float("nan"),
    ) -> CardRow:
        """The row of ``key`` (measure, protocol, scorer, candidates, pool) in ``domain``."""
        measure, protocol, scorer, candidates, pool = key
        return cls(
            domain, candidates, pool, measure, protocol, scorer, people, n, value, *ends, chance
        )

    @property
    def key(self) -> tuple[str, str, str, int, str]:
        """What the row measures, whatever its domain: (measure, protocol, scorer,
        candidates, pool)."""
        return (self.measure, self.protocol, self.scorer, self.candidates, self.pool)


def spearman(pairs: np.ndarray) -> float:
    """Spearman's correlation of (predicted, real) pairs; NaN where either is constant."""
    if len(pairs) < 3 or np.ptp(pairs[:, 0]) == 0 or np.ptp(pairs[:, 1]) == 0:
        return float("nan")
    # Pearson's correlation of the average ranks: Spearman's, without spearmanr's checks,
    # which cost a millisecond a call over a card's 12,000 resamples
    ranks = stats.rankdata(pairs, axis=0)
    return float(np.corrcoef(ranks[:, 0], ranks[:, 1])[0, 1])


def _per_person(
    scored: Sequence[Scored], read: Callable[[Scored], Mapping[Key, T]]
) -> dict[Key, dict[str, list[T]]]:
    """Each key's held-out values (``read`` of each held-out), grouped by person."""
    per: dict[Key, dict[str, list[T]]] = defaultdict(lambda: defaultdict(list))
    for s in scored:
        for key, found in read(s).items():
            per[key][s.person].append(found)
    return per


def _correlation_rows(scored: Sequence[Scored], domain: str, seed: int) -> list[CardRow]:
    """Each rank correlation over every held-out's (predicted, real) pair, its interval a
    percentile bootstrap over people (their pairs move together)."""
    per = _per_person(scored, lambda s: s.pairs)
    rows = []
    for key in sorted(per):
        people = [np.array(v) for v in per[key].values()]
        value = spearman(np.concatenate(people))
        low = high = float("nan")
        if np.isfinite(value):
            low, high = person_interval(
                people,
                lambda drawn: spearman(np.concatenate(drawn)),
                seed=seed,
                draws=RESAMPLES,
                level=LEVEL,
            )
        n = sum(len(v) for v in people)
        rows.append(CardRow.of(domain, key, len(people), n, value, (low, high)))
    return rows


def _mean_rows(scored: Sequence[Scored], domain: str, seed: int) -> list[CardRow]:
    """Every mean measure the held-outs have, beside chance where the user's own role
    has one."""
    per = _per_person(scored, lambda s: s.values)
    rows = []
    for key, people in per.items():
        measure, _, scorer, count, _ = key
        sums = np.array([sum(v) for v in people.values()])
        counts = np.array([len(v) for v in people.values()], dtype=float)
        finished = finish(measure)
        value = float(finished(sums.sum() / counts.sum()))
        low = high = float("nan")
        if len(people) >= 2 and np.ptp(sums / counts) > 0:
            ends = mean_interval(sums, counts, seed=seed, draws=RESAMPLES, level=LEVEL)
            low, high = float(finished(ends[0])), float(finished(ends[1]))
        elif len(people) >= 2:  # every person alike: no spread to resample
            low = high = value
        chance = chance_values(count).get(measure, float("nan")) if count else float("nan")
        size = (len(people), int(counts.sum()))
        row = CardRow.of(domain, key, *size, value, (low, high), chance)
        rows.append(row)
        if scorer in USER_ROLES and not math.isnan(chance):  # chance beside the user's own
            rows.append(replace(row, scorer="chance", value=chance, low=chance, high=chance))
    return rows


SEPARATED = ("p_buy_rated_4_5", "p_buy_rated_1_2")  # the decision's separation, its parts


def _separation_rows(scored: Sequence[Scored], domain: str, seed: int) -> list[CardRow]:
    """P(buy) of the held-outs people rated 4-5 less that of those rated 1-2, its interval
    resampling people (each holds a held-out of one group or the other, or none)."""
    parts = []
    for s in scored:
        row = []
        for measure in SEPARATED:
            value = s.values.get((measure, "request", "decision", *ANY))
            row += [value or 0.0, float(value is not None)]
        parts.append(row)
    units = np.array(parts, dtype=float).reshape(-1, 4)
    liked, disliked = units[:, 1].sum(), units[:, 3].sum()
    if not liked or not disliked:
        return []

    def separation(total: np.ndarray) -> np.ndarray:
        return total[:, 0] / total[:, 1] - total[:, 2] / total[:, 3]

    value = float(separation(units.sum(axis=0, keepdims=True))[0])
    low, high = sums_interval(units, separation, seed=seed, draws=RESAMPLES, level=LEVEL)
    people = int(np.sum(units[:, 1] + units[:, 3] > 0))
    n = int(liked + disliked)
    key = ("p_buy_4_5_less_1_2", "request", "decision", *ANY)
    return [CardRow.of(domain, key, people, n, value, (low, high), 0.0)]


def _silent_rows(rows: Sequence[CardRow], silent: Mapping[str, str]) -> list[CardRow]:
    """For each baseline that cannot speak in the domain (``silent``: its name and why),
    a row without a value for every ranking key the centroid has, saying why."""
    nan = float("nan")
    return [
        replace(r, scorer=scorer, n_people=0, n=0, value=nan, low=nan, high=nan, note=why)
        for scorer, why in sorted(silent.items())
        for r in rows
        if r.scorer == "centroid"
    ]


def card_rows(
    scored: Sequence[Scored],
    seed: int,
    silent: Mapping[str, Mapping[str, str]] | None = None,
) -> list[CardRow]:
    """Every (measure, protocol, scorer, candidates, pool) the held-outs have, over every
    domain together (ALL) and in each: the mean over held-outs, its interval a percentile
    bootstrap over people (``RESAMPLES`` draws, seeded). ``silent`` gives, by domain, the
    baselines that cannot speak there and why: their rows there say so, and their ALL rows
    name the domains they leave out."""
    silent = silent or {}
    order = {m: i for i, m in enumerate(card_measures())}
    by_domain: dict[str, list[Scored]] = defaultdict(list)
    for s in scored:
        by_domain[s.domain].append(s)
    left_out: dict[str, list[str]] = defaultdict(list)
    for domain, why in silent.items():
        for scorer, reason in why.items():
            left_out[scorer].append(f"{domain} ({reason})")
    rows: list[CardRow] = []
    for domain, members in [(ALL, list(scored)), *sorted(by_domain.items())]:
        found = _mean_rows(members, domain, seed) + _correlation_rows(members, domain, seed)
        found += _separation_rows(members, domain, seed)
        quiet = dict(silent.get(domain, {}))
        if domain == ALL:
            quiet = {scorer: "leaves out " + ", ".join(why) for scorer, why in left_out.items()}
            found = [replace(r, note=quiet[r.scorer]) if r.scorer in quiet else r for r in found]
        speaking = {r.scorer for r in found}
        found += _silent_rows(found, {k: v for k, v in quiet.items() if k not in speaking})
        rows += sorted(
            found,
            key=lambda r: (
                order.get(r.measure, len(order)),
                r.pool,
                r.candidates,
                r.protocol,
                r.scorer,
            ),
        )
    return rows


# Which of the report's results rest on which measure: the card's reading.
RESTS_ON = (
    (
        "Top-1 shares, access and the ranking funnel (the user agent's shortlist)",
        "hr@1, hr@3, ndcg@10 and pairwise_1to1 under `request`; under `history` what the "
        "history alone tells apart",
    ),
    (
        "purchase rates, target purchase and regret (the user's decision)",
        "buy_accuracy_1to1, p_buy_rated_1_2 against p_buy_rated_4_5 (their difference "
        "p_buy_4_5_less_1_2: above 0 where the decision tells what people liked from what "
        "they did not)",
    ),
    (
        "reviews, claim-reliability records and everything reputation moves (LocalRep)",
        "star_mae, star_rmse, star_spearman",
    ),
)


def write_page(
    rows: Sequence[CardRow], path: Path, made: str, paired: Sequence[Sequence[str]] = ()
) -> None:
    """``validity.md``: the card's table, the user's roles less each baseline on the same
    held-outs (``paired``: ``Difference.cells``), what rests on which measure, and what it
    cannot support."""
    lines = [
        "# Validity card: the simulated user against real people",
        "",
        made,
        "",
        "| " + " | ".join(COLUMNS) + " |",
        "|" + "---|" * len(COLUMNS),
        *("| " + " | ".join(r.cells()) + " |" for r in rows),
        "",
        "Intervals: 95% percentile bootstrap over people "
        f"({RESAMPLES:,} draws); a person's held-outs move together.",
        "",
        "## Against the baselines, on the same held-outs",
        "",
        "| measure | protocol | candidates | scorers | difference | low | high |",
        "|---|---|---|---|---|---|---|",
        *("| " + " | ".join(cells) + " |" for cells in paired),
        "",
        "A difference whose interval lies above 0 says the role beats the baseline (below 0 "
        "for an error such as star_mae and star_rmse); one that holds 0, that no difference "
        "is detectable.",
        "",
        "## What rests on which measure",
        "",
        *(f"- **{result}**: {measures}." for result, measures in RESTS_ON),
        "",
        "Market contrasts under a fixed user model (one cell against another, the same "
        "simulated users in both) stand whatever this card says. A statement about what "
        "people would buy or rate needs the measures above to hold: where a measure sits at "
        "its chance or below a baseline, the user model does not carry it.",
        "",
    ]
    write_text_whole(path, "\n".join(lines))


def write_csv(rows: Sequence[CardRow], path: Path) -> None:
    """``validity.csv``: one row per measure, protocol and scorer (written whole)."""
    with replaced(path) as temporary, temporary.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(COLUMNS)
        writer.writerows(r.cells() for r in rows)
