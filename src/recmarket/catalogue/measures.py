"""Measures by name: the one vocabulary every output reads.

A measure is a ``MarketMeasure``. It declares the columns it reads, its unit (an episode of
the market, or a person of the validity card), whether its value is a share (shown as a
percent where a table shows percents) and where it is shown (``PLACES``). Each output takes
its measures from here (``shown_at``) and shows each under its own name: the funnel of
``run`` (and its terminal table and JSON), the reproduce table, a cell's measures with their
intervals (cells.csv, ``run --json``), the design frontier, the paper comparison, the
prediction-powered table and the validity card. So a measure another package registers,
under the ``recmarket.measures`` entry-point group, reaches every output its declaration
names, as a built-in does.

An episode measure's ``metric(cfg)`` gives the ``Metric`` (``recmarket.analysis.bootstrap``)
a cell of those settings is measured with; one that takes parameters (``Params``: a Top-1
share in a block of rounds, a record label's share) is made by ``metric(cfg, params)``, and
a paper number names it with its parameters. The built-in episode measures register where
they are computed (``recmarket.analysis.market_measures``, ``recmarket.analysis.shares``), the
person measures where the card scores them (``recmarket.validity.card``), whose ``metric`` is
the function its held-outs' mean is finished by.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from pydantic import BaseModel

from recmarket.catalogue.registry import NoParams, Registry

Place = Literal["funnel", "table", "cells", "frontier", "paper", "ppi", "card"]
PLACES: tuple[Place, ...] = get_args(Place)
WHERE = {
    "funnel": "the funnel of a run (run's table and its JSON's domains and macro)",
    "table": "a column of reproduce's terminal table",
    "cells": "a cell's value with its interval (cells.csv, run --json's measures)",
    "frontier": "the design frontier's table",
    "paper": "the paper comparison (a paper number may name it)",
    "ppi": "the prediction-powered table of a piloted study",
    "card": "the validity card (a person measure)",
}
Unit = Literal["episode", "person"]
# where an episode measure is shown unless it says otherwise: everywhere a cell is measured
# with an interval (a plugin's measure included)
WITH_INTERVALS: frozenset[Place] = frozenset({"cells", "frontier", "paper", "ppi"})


@dataclass(frozen=True)
class MarketMeasure:
    """A measure registered by name (its column wherever it is shown): a heading, the
    columns it reads, what it says, and ``metric``, which makes what it is computed with.
    ``unit``: "episode" (the market's measures, their intervals the two-stage cluster
    bootstrap over a cell's memory units) or "person" (the validity card's, resampling
    people). ``share``: a fraction shown as a percent (a rate or a share), else a mean of a
    count or a real value. ``shown``: the places (``PLACES``) that show it."""

    name: str
    label: str  # a table's column heading
    reads: tuple[str, ...]
    says: str
    metric: Callable[..., Any]  # settings (RunConfig)[, params] -> its Metric
    unit: Unit = "episode"
    share: bool = True
    shown: frozenset[Place] = field(default=WITH_INTERVALS)
    Params: type[BaseModel] = NoParams  # its parameters' model: it takes none

    def make(self, cfg: Any, params: BaseModel | None = None) -> Any:
        """The Metric of a cell of settings ``cfg`` (at ``params``, for a measure that
        takes parameters; at its defaults where none are given)."""
        if self.Params is NoParams:
            return self.metric(cfg)
        return self.metric(cfg, params if params is not None else self.Params())


def probe(measure: MarketMeasure, params: object) -> None:
    """The contract, checked when the measure is named: a column heading, the columns it
    reads, a metric to make, known places, and a person measure shown only on the card (an
    episode measure never there)."""
    if not measure.label.strip() or not measure.reads:
        raise ValueError("it needs a column heading and the columns it reads")
    if not callable(measure.metric):
        raise ValueError("its metric is not callable")
    unknown = sorted(set(measure.shown) - set(PLACES))
    if unknown:
        raise ValueError(f"unknown places {unknown}; known: {', '.join(PLACES)}")
    if (measure.unit == "person") != (set(measure.shown) == {"card"}):
        raise ValueError("a person measure is shown on the card alone, an episode one never")


MARKET_MEASURES: Registry[MarketMeasure] = Registry(
    "market measure", "recmarket.measures", MarketMeasure, lambda m: m.name, probe
)


def shown_at(place: Place) -> list[MarketMeasure]:
    """The registered measures a place shows, in registration order (built-ins first)."""
    if place not in PLACES:
        raise ValueError(f"unknown place {place!r}; known: {', '.join(PLACES)}")
    return [m for m in MARKET_MEASURES if place in m.shown]


def names_at(place: Place) -> tuple[str, ...]:
    """The names of the measures ``place`` shows."""
    return tuple(m.name for m in shown_at(place))


def where(measure: MarketMeasure) -> str:
    """The places a measure is shown, in words."""
    return "; ".join(WHERE[p] for p in PLACES if p in measure.shown)
