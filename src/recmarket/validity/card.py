"""The validity card: each measure's value with its 95% interval, resampling people (a
person's held-outs in every domain move together; ``resampling``, the engine every interval
of recmarket is drawn with), beside chance, as ``validity.csv`` and a
page, ``validity.md``, that says which of the report's results rest on which measure."""

from __future__ import annotations

import csv
import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy import stats

from recmarket.files import replaced, write_text_whole
from recmarket.resampling import mean_interval, person_interval
from recmarket.validity.measures import card_measures, finish
from recmarket.validity.scoring import Key, Scored, chance_values

COLUMNS = ("measure", "protocol", "scorer", "n_people", "n", "value", "low", "high", "chance")
RESAMPLES = 2_000
LEVEL = 0.95
USER_ROLES = ("ranker", "decision", "review")


@dataclass(frozen=True)
class CardRow:
    """One measure of one scorer under one protocol."""

    measure: str
    protocol: str
    scorer: str
    n_people: int
    n: int
    value: float
    low: float
    high: float
    chance: float

    def cells(self) -> list[str]:
        """The row as ``validity.csv`` writes it (no value: an empty cell)."""

        def shown(x: float) -> str:
            return "" if math.isnan(x) else f"{x:.4f}"

        return [
            self.measure,
            self.protocol,
            self.scorer,
            str(self.n_people),
            str(self.n),
            *(shown(x) for x in (self.value, self.low, self.high, self.chance)),
        ]


def spearman(pairs: np.ndarray) -> float:
    """Spearman's correlation of (predicted, real) pairs; NaN where either is constant."""
    if len(pairs) < 3 or np.ptp(pairs[:, 0]) == 0 or np.ptp(pairs[:, 1]) == 0:
        return float("nan")
    return float(stats.spearmanr(pairs[:, 0], pairs[:, 1]).statistic)


def correlation_rows(scored: Sequence[Scored], seed: int) -> list[CardRow]:
    """Each rank correlation over every held-out's (predicted, real) pair, its interval a
    percentile bootstrap over people (their pairs move together)."""
    per: dict[Key, dict[str, list[tuple[float, float]]]] = defaultdict(lambda: defaultdict(list))
    for s in scored:
        for key, pair in s.pairs.items():
            per[key][s.person].append(pair)
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
        rows.append(CardRow(*key, len(people), n, value, low, high, float("nan")))
    return rows


def card_rows(scored: Sequence[Scored], candidates: int, seed: int) -> list[CardRow]:
    """Every (measure, protocol, scorer) the held-outs have: the mean over held-outs, its
    interval a percentile bootstrap over people (``RESAMPLES`` draws, seeded)."""
    per: dict[Key, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for s in scored:
        for key, value in s.values.items():
            per[key][s.person].append(value)
    chance = chance_values(candidates)
    rows = []
    order = {m: i for i, m in enumerate(card_measures())}
    for key in sorted(per, key=lambda k: (order.get(k[0], len(order)), k[1], k[2])):
        people = per[key]
        sums = np.array([sum(v) for v in people.values()])
        counts = np.array([len(v) for v in people.values()], dtype=float)
        finished = finish(key[0])
        value = float(finished(sums.sum() / counts.sum()))
        low = high = float("nan")
        if len(people) >= 2 and np.ptp(sums / counts) > 0:
            ends = mean_interval(sums, counts, seed=seed, draws=RESAMPLES, level=LEVEL)
            low, high = float(finished(ends[0])), float(finished(ends[1]))
        elif len(people) >= 2:  # every person alike: no spread to resample
            low = high = value
        measure, protocol, scorer = key
        rows.append(
            CardRow(
                measure,
                protocol,
                scorer,
                len(people),
                int(counts.sum()),
                value,
                low,
                high,
                chance.get(measure, float("nan")),
            )
        )
        if scorer in USER_ROLES and measure in chance:  # chance beside the user's own
            rows.append(
                CardRow(
                    measure,
                    protocol,
                    "chance",
                    len(people),
                    int(counts.sum()),
                    chance[measure],
                    chance[measure],
                    chance[measure],
                    chance[measure],
                )
            )
    rows += correlation_rows(scored, seed)
    return sorted(rows, key=lambda r: order.get(r.measure, len(order)))


# Which of the report's results rest on which measure: the card's reading.
RESTS_ON = (
    (
        "Top-1 shares, access and the ranking funnel (the user agent's shortlist)",
        "hr@1, hr@3, ndcg@10 and pairwise_1to1 under `request`; under `history` what the "
        "history alone tells apart",
    ),
    (
        "purchase rates, target purchase and regret (the user's decision)",
        "buy_accuracy_1to1, p_buy_rated_1_2 against p_buy_rated_4_5",
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
    held-outs (``paired``: rows of measure, protocol, scorers, difference, low, high), what
    rests on which measure, and what it cannot support."""
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
        "| measure | protocol | scorers | difference | low | high |",
        "|---|---|---|---|---|---|",
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
