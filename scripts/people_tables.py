"""The docs' tables of the validity card on the shared real slices (docs/people.md): the
card before fitting and at the defaults, the defaults by category, and issue 66's targets,
each from ``recmarket validate`` run here (``tables``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from table_writers import markdown

from recmarket.validity.card import CardRow

# (measure, protocol, scorer, candidates, pool) of the card's rows the docs show: the user's
# roles beside the ladder, at 1 of 10 random negatives unless named
_TEN, _ANY = (10, "random"), (0, "")
PEOPLE_ROWS = (
    *(
        ("pairwise_1to1", "history", s, *_TEN)
        for s in ("ranker", "centroid", "recent_centroid", "bm25")
    ),
    *(("pairwise_1to1", "history", s, 10, "same-kind") for s in ("ranker", "centroid", "bm25")),
    *(
        ("hr@1", "history", s, *_TEN)
        for s in (
            "ranker",
            "popularity",
            "centroid",
            "recent_centroid",
            "bm25",
            "cooccurrence",
            "sequential",
        )
    ),
    *(("hr@1", "history", s, 10, "same-kind") for s in ("ranker", "centroid", "bm25")),
    *(("hr@1", "history", s, 20, "random") for s in ("ranker", "centroid", "bm25")),
    ("hr@1", "request", "ranker", *_TEN),
    ("hr@1", "request", "ranker", 10, "same-kind"),
    ("hr@1", "request", "ranker", 20, "random"),
    ("buy_accuracy_1to1", "request", "decision", *_TEN),
    ("p_buy_rated_1_2", "request", "decision", *_ANY),
    ("p_buy_rated_4_5", "request", "decision", *_ANY),
    *(
        (m, "history", s, *_ANY)
        for m in ("star_mae", "star_rmse", "star_spearman")
        for s in ("review", "person_mean", "always_5")
        if (m, s) != ("star_spearman", "always_5")  # a constant has no rank correlation
    ),
)
# the per-category table: the defaults on every person, by domain
DOMAIN_ROWS = (
    ("hr@1", "history", "ranker", *_TEN),
    ("hr@1", "history", "centroid", *_TEN),
    ("hr@1", "history", "bm25", *_TEN),
    ("pairwise_1to1", "history", "ranker", *_TEN),
    ("hr@1", "history", "ranker", 10, "same-kind"),
    ("hr@1", "request", "ranker", *_TEN),
    ("p_buy_rated_1_2", "request", "decision", *_ANY),
    ("p_buy_rated_4_5", "request", "decision", *_ANY),
    ("star_rmse", "history", "review", *_ANY),
    ("star_rmse", "history", "person_mean", *_ANY),
)


def _cell(row: CardRow | None) -> str:
    if row is None or row.value != row.value:  # no stars before fitting: no value
        return "-"
    return f"{row.value:.3f} [{row.low:.3f}, {row.high:.3f}] (n {row.n_people})"


def _label(key: tuple[str, str, str, int, str]) -> list[str]:
    measure, protocol, scorer, candidates, pool = key
    return [measure, protocol, scorer, f"1 of {candidates}, {pool}" if candidates else "-"]


def tables() -> dict[str, str]:
    """The validity cards on the shared real slices (``recmarket data real-slice``), with 9
    and 19 negatives from both pools: the user as it was before it was fitted to real people
    (docs/people-before.toml), and at its defaults, fitted on the fit half of the people,
    on every person (in-sample for the fitted parameters) and on the report half the fit
    never saw; values with 95% percentile-bootstrap intervals over people. Also the
    defaults' card by category, and what was left out."""
    import asyncio
    import tempfile

    from recmarket.config_file import build_config
    from recmarket.data.samples import real_slice
    from recmarket.validity.validate import SKIPPED_CSV, skipped_summary, validate_settings

    root = Path(__file__).resolve().parents[1]
    before = build_config(root / "docs" / "people-before.toml", {}, {})
    defaults = build_config(None, {}, {})
    runs = [("before fitting, all people", before, "all")]
    runs += [("defaults, all people (in-sample)", defaults, "all")]
    runs += [("defaults, report half", defaults, "report")]
    cards, by_domain = [], {}
    with tempfile.TemporaryDirectory() as folder:
        data = Path(folder) / "slice"
        real_slice(root.parent / "shared" / "data" / "amazon23", data)
        for name, settings, half in runs:
            out = Path(folder) / name
            rows = asyncio.run(
                validate_settings(
                    settings, data, [], out, cards=Path(folder), half=half, negatives=(9, 19)
                )
            )
            cards.append({r.key: r for r in rows if r.domain == "all"})
            if name.startswith("defaults, all"):
                left = skipped_summary(out / SKIPPED_CSV)
                for r in rows:
                    by_domain.setdefault(r.domain, {})[r.key] = r
    head = ["measure", "protocol", "scorer", "candidates", *(name for name, _, _ in runs)]
    card = markdown(head, [[*_label(k), *(_cell(c.get(k)) for c in cards)] for k in PEOPLE_ROWS])
    domains = sorted(by_domain, key=lambda d: (d == "all", d))
    per = markdown(
        ["measure", "protocol", "scorer", "candidates", *domains],
        [[*_label(k), *(_cell(by_domain[d].get(k)) for d in domains)] for k in DOMAIN_ROWS],
    )
    report, every = _targets(cards[2]), _targets(cards[1])  # the defaults' two readings
    head = ["target", "defaults, report half", "met?", "defaults, all people (in-sample)"]
    rows = [[target, *report[target], every[target][0]] for target in report]
    return {
        "people-card": card,
        "people-domains": per + f"\nLeft out: {left}.\n",
        "people-targets": markdown(head, rows),
    }


def _targets(card: dict) -> dict[str, tuple[str, str]]:
    """Issue 66's targets on one card (domain all, 1 of 10 random negatives): each target's
    figures, and whether it is met, by how much either way."""

    def get(measure: str, protocol: str, scorer: str, draw: tuple[int, str] = _TEN) -> Any:
        return card[(measure, protocol, scorer, *draw)]

    def by(margin: float, unit: str = "points") -> str:
        size = f"{abs(margin) * (100 if unit == 'points' else 1):.{1 if unit == 'points' else 3}f}"
        return (
            f"{'yes' if margin >= 0 else 'no'}, {'by' if margin >= 0 else 'short by'} {size} {unit}"
        )

    hr, centroid = get("hr@1", "history", "ranker"), get("hr@1", "history", "centroid")
    pw = get("pairwise_1to1", "history", "ranker")
    rho, rho_mean = (get("star_spearman", "history", s, _ANY) for s in ("review", "person_mean"))
    rmse, rmse_mean = (get("star_rmse", "history", s, _ANY) for s in ("review", "person_mean"))
    gap = card.get(("p_buy_4_5_less_1_2", "request", "decision", *_ANY))
    return {
        "History alone: HR@1 at least the centroid's less 1 point": (
            f"{hr.value:.3f} against {centroid.value:.3f}",
            by(hr.value - (centroid.value - 0.01)),
        ),
        "History alone: pairwise lower bound above 50%": (
            f"{pw.value:.3f} [{pw.low:.3f}, {pw.high:.3f}]",
            by(pw.low - 0.5),
        ),
        "Review: Spearman at least 0.8 x the person's mean's": (
            f"{rho.value:.3f} against {rho_mean.value:.3f} ({rho.value / rho_mean.value:.2f} x)",
            by(rho.value / rho_mean.value - 0.8, "x"),
        ),
        "Review: RMSE no worse than the person's mean's plus 0.02": (
            f"{rmse.value:.3f} against {rmse_mean.value:.3f}",
            by(rmse_mean.value + 0.02 - rmse.value, "stars"),
        ),
        "Decision: P(buy) of what people rated 4-5 less 1-2 (no target: reported)": (
            "-" if gap is None else f"{gap.value:+.3f} [{gap.low:+.3f}, {gap.high:+.3f}]",
            "-",
        ),
    }
