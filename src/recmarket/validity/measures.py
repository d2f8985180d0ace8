"""The validity card's measures, registered where every output's measures are
(``recmarket.catalogue.measures``) as person measures: each is a mean over a person's
held-outs (a correlation: over every held-out's pair), its interval a bootstrap over people.
Its ``metric`` is the function the mean is finished by (RMSE: the square root of the mean
squared error, at the mean and at both ends of its interval)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from recmarket.catalogue.measures import MARKET_MEASURES, MarketMeasure, Place, names_at

CARD: frozenset[Place] = frozenset({"card"})
RANKED = ("history", "held_out", "negatives")


def _as_is(value: float) -> float:
    return value


def _person(
    name: str,
    label: str,
    reads: tuple[str, ...],
    says: str,
    finish: Callable[[float], float] = _as_is,
    *,
    share: bool = True,
) -> MarketMeasure:
    return MarketMeasure(name, label, reads, says, finish, unit="person", share=share, shown=CARD)


for measure in (
    _person("pairwise_1to1", "pairwise 1:1", RANKED, "the held-out ranked above a negative"),
    _person("hr@1", "HR@1", RANKED, "the held-out ranked first among the candidates"),
    _person("hr@3", "HR@3", RANKED, "the held-out ranked in the first three"),
    _person("ndcg@10", "nDCG@10", RANKED, "the held-out's discounted rank among ten"),
    _person(
        "buy_accuracy_1to1",
        "buy accuracy 1:1",
        ("held_out", "negatives"),
        "the decision buys the held-out rather than a negative",
    ),
    _person(
        "star_mae",
        "star MAE",
        ("rating",),
        "the mean absolute error of the review's stars",
        share=False,
    ),
    _person(
        "star_rmse",
        "star RMSE",
        ("rating",),
        "the root mean squared error of the review's stars",
        np.sqrt,
        share=False,
    ),
    _person(
        "star_spearman",
        "star Spearman",
        ("rating",),
        "Spearman's correlation of the review's stars with the person's",
        share=False,
    ),
    _person(
        "p_buy_rated_1_2",
        "buys rated 1-2",
        ("held_out", "rating"),
        "the decision buys a held-out the person rated 1-2",
    ),
    _person(
        "p_buy_rated_4_5",
        "buys rated 4-5",
        ("held_out", "rating"),
        "the decision buys a held-out the person rated 4-5",
    ),
    _person(
        "p_buy_4_5_less_1_2",
        "buys 4-5 less 1-2",
        ("held_out", "rating"),
        "how much more readily the decision buys what people rated 4-5 than 1-2",
        share=False,
    ),
):
    MARKET_MEASURES.register(measure)


def card_measures() -> tuple[str, ...]:
    """The card's measures in the order it lists them."""
    return names_at("card")


def finish(name: str) -> Callable[[float], float]:
    """What a card measure's mean over held-outs is finished by (an unknown name fails with
    the known ones)."""
    found: Callable[[float], float] = MARKET_MEASURES.get(name).metric
    return found
