"""Listing copy: how a platform rewrites the listing the user agent and the user read.

A presentation policy changes the claim a platform attaches to its candidate; a copy
strategy changes the listing itself, the title the offline ranker and the user read their
own fit from (the field's generative-engine optimisation: GEO, E-GEO, C-SEO Bench). The two
are orthogonal: a seat named in ``market.copy`` (``P4 = { copy = "copy-stuffing", params =
{ intensity = 0.5 } }``) keeps its presentation and rewrites every listing it proposes.

A strategy sees what its platform sees: the request's words (from the structured need), the
listing's own title and description, whether the item's own fields support each word, and
the ranker's reading of a title (what E-GEO's optimiser queries). It chooses the words it
puts at the front of the title, and the copywriter role writes the listing: offline, by the
strategy's own mechanism (``recmarket.agents.rules.copywriter``); on the LLM path, by a
model told the strategy's constraint and its allowance of words (``copywriter`` card).
The built-ins, each with ``intensity`` in [0, 1], the share of its candidate words it may
use (rounded up; 0 uses none, so the listing is the item's own and the records equal
``copy-none``'s):

- **copy-none**: the listing as the item has it. The default.
- **copy-emphasis**: constrained. It foregrounds what the item has: the request's words that
  the item's own fields support and its title lacks, in the request's order, and the
  description's sentences that name them. It never adds a word the item does not support.
- **copy-stuffing**: unconstrained. The request's words the title lacks, supported or not,
  at the title's front and again in an added bullet, as keyword stuffing does.
- **copy-optimised**: a search against the ranker's reading under a constraint. Greedily,
  the candidate word that raises the reading most joins the title, until the budget is spent
  or no word raises it. ``faithful`` (the default) is the constraint: only words the item
  supports are candidates. It differs from emphasis in choosing by the reading, so it
  keeps only the words that move the ranker.

Another package adds a strategy under the ``recmarket.copy`` entry-point group: a
``CopyStrategy`` whose ``words`` chooses from a ``CopyBrief``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer

from recmarket.catalogue.registry import NameIn, Registry, VariantSetting


class CopyParams(BaseModel):
    """What every copy strategy takes: how much of its candidate words it uses."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    intensity: float = Field(
        0.5,
        ge=0.0,
        le=1.0,
        allow_inf_nan=False,
        description="the share of its candidate words it may add (rounded up; 0: none, the "
        "listing as the item has it)",
    )


class OptimisedParams(CopyParams):
    """The optimised strategy's: its budget, and whether it stays faithful to the item."""

    faithful: bool = Field(
        True, description="only words the item's own fields support are candidates"
    )


@dataclass(frozen=True)
class CopyBrief:
    """What a strategy rewrites from: the request's content words that the listing's title
    lacks (in the request's order), whether the item's own fields support each, and the
    ranker's reading of a candidate title (higher: it reads as fitting the request better)."""

    words: tuple[str, ...]
    supported: tuple[bool, ...]
    read: Callable[[tuple[str, ...]], float]  # the words at the title's front -> reading

    def backed(self) -> tuple[str, ...]:
        """The words the item supports."""
        return tuple(w for w, ok in zip(self.words, self.supported, strict=True) if ok)


def budget(words: tuple[str, ...], intensity: float) -> int:
    """How many of ``words`` a strategy of ``intensity`` may use: the share, rounded up."""
    return min(len(words), math.ceil(intensity * len(words) - 1e-9))


@dataclass(frozen=True)
class CopyStrategy:
    """A registered copy strategy. ``words`` chooses the words put at the title's front;
    ``bullet``: whether they are listed again in a bullet added to the description;
    ``foreground``: whether the description's sentences naming them move to its front;
    ``rewrites``: whether it may rewrite at all (copy-none never does, so its seats are the
    market's plain ones)."""

    name: str
    Params: type[BaseModel] = CopyParams
    bullet: bool = False
    foreground: bool = False
    rewrites: bool = True

    def words(self, brief: CopyBrief, params: Any) -> tuple[str, ...]:
        """The words added (none: the listing is the item's own)."""
        return ()

    def constrained(self, params: Any) -> bool:
        """Whether it adds only words the item's own fields support: what a copywriter
        model is told (the constrained prompt, never inventing an attribute) and what its
        pool of candidate words is."""
        return True

    def allowance(self, brief: CopyBrief, params: Any) -> int:
        """The most words it may add: its intensity's share of its candidate words (the
        supported ones where it is constrained). 0: no copywriter is asked, and the listing
        stays the item's own."""
        if not self.rewrites:
            return 0
        pool = brief.backed() if self.constrained(params) else brief.words
        return budget(pool, params.intensity)


@dataclass(frozen=True)
class Emphasis(CopyStrategy):
    """The supported request words, first ones first."""

    def words(self, brief: CopyBrief, params: Any) -> tuple[str, ...]:
        backed = brief.backed()
        return backed[: budget(backed, params.intensity)]


@dataclass(frozen=True)
class Stuffing(CopyStrategy):
    """Every request word the title lacks, first ones first."""

    def words(self, brief: CopyBrief, params: Any) -> tuple[str, ...]:
        return brief.words[: budget(brief.words, params.intensity)]

    def constrained(self, params: Any) -> bool:
        return False


@dataclass(frozen=True)
class Optimised(CopyStrategy):
    """A greedy search over the candidate words by the ranker's reading."""

    Params: type[BaseModel] = OptimisedParams

    def words(self, brief: CopyBrief, params: Any) -> tuple[str, ...]:
        pool = brief.backed() if params.faithful else brief.words
        chosen: tuple[str, ...] = ()
        best = brief.read(chosen)
        for _ in range(budget(pool, params.intensity)):
            left = [w for w in pool if w not in chosen]
            if not left:
                break
            scored = [(brief.read((*chosen, w)), -i, w) for i, w in enumerate(left)]
            reading, _, word = max(scored)  # ties: the earlier word of the request
            if reading <= best:
                break
            chosen, best = (*chosen, word), reading
        return chosen

    def constrained(self, params: Any) -> bool:
        return bool(params.faithful)


def probe(strategy: CopyStrategy, params: BaseModel) -> None:
    """The contract: words chosen from the brief's own words, none at intensity 0."""
    brief = CopyBrief(("wireless", "quiet"), (True, False), lambda words: float(len(words)))
    chosen = strategy.words(brief, params)
    if not isinstance(chosen, tuple) or not set(chosen) <= set(brief.words):
        raise ValueError(f"it chose {chosen!r}, not words of the brief")
    if getattr(params, "intensity", None) == 0 and chosen:
        raise ValueError("at intensity 0 it must add nothing")


COPY_STRATEGIES: Registry[CopyStrategy] = Registry(
    "copy strategy", "recmarket.copy", CopyStrategy, lambda c: c.name, probe
)
COPY_STRATEGIES.register(CopyStrategy("copy-none", rewrites=False))
COPY_STRATEGIES.register(Emphasis("copy-emphasis", foreground=True))
COPY_STRATEGIES.register(Stuffing("copy-stuffing", bullet=True))
COPY_STRATEGIES.register(Optimised("copy-optimised", foreground=True))

CopyName = Annotated[str, NameIn(COPY_STRATEGIES)]


class CopySetting(VariantSetting):
    """A seat's copy strategy with its parameters: ``{ copy = "copy-emphasis", params =
    { intensity = 0.5 } }``."""

    REGISTRY = COPY_STRATEGIES
    KEY = "copy"
    copy_: CopyName = Field(alias="copy", description="a registered copy strategy")

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    @property
    def name(self) -> str:
        """The strategy's name (``copy`` is pydantic's own method, so the field is
        ``copy_``, read and written as ``copy``)."""
        return self.copy_

    @model_serializer(mode="wrap")
    def _as_written(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        dumped = handler(self)
        return {"copy": dumped.pop("copy_"), **dumped}

    @property
    def made(self) -> CopyStrategy:
        """The registered strategy the setting names."""
        return COPY_STRATEGIES.get(self.copy_)

    @property
    def rewrites(self) -> bool:
        """Whether the seat may rewrite anything (copy-none never does)."""
        return self.made.rewrites
