"""Market measures by name: what cells.csv, the design frontier and the report measure a
cell by, each with its 95% interval.

A measure is a ``MarketMeasure``; its ``metric(cfg)`` gives the ``Metric``
(``recmarket.analysis.bootstrap``) a cell of those settings is measured with. The built-in
measures register where they are computed (``recmarket.analysis.market_measures``: they read
the market's seats); another package adds one under the ``recmarket.measures`` entry-point
group.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from recmarket.catalogue.registry import NoParams, Registry


@dataclass(frozen=True)
class MarketMeasure:
    """A market-level measure of a cell, registered by name (its column in cells.csv, the
    frontier and the report): the episode columns it reads, what it says, and
    ``metric(cfg)``, its per-episode parts and how summed parts become its value for a cell
    of those settings. Its interval is the two-stage cluster bootstrap of that value over
    the cell's memory units (``market_measures``). ``on_frontier``: whether the design
    frontier's table carries it."""

    name: str
    label: str  # a table's column heading
    reads: tuple[str, ...]
    says: str
    metric: Callable[[Any], Any]  # settings (RunConfig) -> its Metric
    on_frontier: bool = True
    Params: type[BaseModel] = NoParams  # its parameters' model: it takes none


def probe(measure: MarketMeasure, params: object) -> None:
    """The contract, checked when the measure is named: a column heading, the columns it
    reads, and a metric to make. Its ``Metric`` is made for a cell's settings when the cell
    is measured (``recmarket.analysis.market_measures``)."""
    if not measure.label.strip() or not measure.reads:
        raise ValueError("it needs a column heading and the columns it reads")
    if not callable(measure.metric):
        raise ValueError("its metric is not callable")


MARKET_MEASURES: Registry[MarketMeasure] = Registry(
    "market measure", "recmarket.measures", MarketMeasure, lambda m: m.name, probe
)
