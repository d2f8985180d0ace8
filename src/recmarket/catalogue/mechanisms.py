"""Reputation mechanisms as objects in a registry: how a memory keeps a
platform's claim-reliability records and how it shows them to the user agent.

``window`` keeps the W most recent records, shown as they are (the paper's Tail_W);
``beta`` keeps every record, so the reader's prior and the number of records decide how
sure it is (few records read as little evidence, not as bad evidence); ``decay`` keeps every
record that still counts, each weighted ``rate`` to the power of the number of newer
records, so a platform whose claims improve recovers.

``oracle`` keeps the last W records, written not from reviews but by a referee who knows the
held-out target (the paper authors' precursor code), knowledge no market has. Whether it is
a mechanism's ceiling is not assumed: the report pairs it with each mechanism
(``tables/oracle_contrasts.csv``).

``beta`` and ``decay`` can also start every identity never seen before from a stated
penalty (``newcomer_low``: that many Low records, shown as the oldest and never replaced),
the pessimistic prior a market sets against whitewashing: a platform that re-enters under a
fresh name starts below one with a good record, not level with it.

A mechanism weighs records by what a memory knows of each (``RecordFacts``): the round it
was written after, who wrote it (the episode's user, a forging platform's fake user, the
oracle's referee, or the market's newcomer penalty), the identity it is about, and the round
it is read in; the built-in ones weigh by position alone (``weights``), and ``weigh`` is
where one discounts by age, by writer or by the writers' diversity.

Another package adds a mechanism under the ``recmarket.reputation`` entry-point group: a
subclass of ``ReputationMechanism`` whose ``Params`` model declares its parameters. The
registry checks it on use with a probe call (``probe``) and names it on failure.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

from recmarket.catalogue.registry import NameIn, NoParams, Registry, VariantSetting
from recmarket.catalogue.writers import WriterLedger

FORGOTTEN = 1e-3  # under decay, a record weighing less than this is dropped
PENALTY_NOTE = "no record yet: a new identity starts from the market's penalty"


class NewcomerParams(BaseModel):
    """The parameter every mechanism but the window takes: Low records a new identity starts
    with."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    newcomer_low: int = Field(
        0, ge=0, le=20, description="Low records every identity never seen before starts with"
    )


class DecayParams(NewcomerParams):
    """The decay mechanism's parameters."""

    rate: float = Field(
        0.8, gt=0.0, lt=1.0, description="a record's weight is rate ** (newer records)"
    )


# Who wrote a record: the episode's user (from the review), a forging platform's fake user,
# the oracle's referee, or the market's newcomer penalty.
Writer = Literal["user", "forged", "oracle", "penalty"]


@dataclass(frozen=True)
class RecordFacts:
    """What a memory knows of one record besides its note: the schedule round
    (``Request.order``) of the episode it was written after, what kind of writer wrote it,
    the identity it is about (a re-entered platform's records are about its new name), the
    account that wrote it (``author``: the simulated user, or a fresh fake account per
    forged record) and its label. The newcomer penalty's records are written in the round
    they are read."""

    written: int
    writer: Writer
    about: str
    author: str = ""
    label: str = ""


@dataclass(frozen=True)
class ReputationMechanism:
    """How records are kept (``kept``), weighed when shown (``weights``), and what an
    identity with no record yet shows (``penalty``).

    ``evidence_header`` is what an LLM user agent is told about the records' weights before
    a summary of each platform's evidence; None for a mechanism whose records speak for
    themselves (the paper's window), whose shortlist inputs then name no mechanism, as in
    the paper's runs. ``Params`` is the model of the mechanism's parameters."""

    name: str
    evidence_header: str | None = None
    Params: type[BaseModel] = NoParams
    # Whether its records come from the held-out target (the oracle) rather than from the
    # purchase's review: then no review or update is asked for
    knows_targets: ClassVar[bool] = False
    # Whether it weighs records by their writers' track records: then the memory keeps a
    # WriterLedger per history set (others keep none, and cost nothing more)
    reads_writers: ClassVar[bool] = False

    def kept(self, window: int, params: BaseModel) -> int | None:
        """Records kept per platform.

        Args: ``window``, the market's W; ``params``, this mechanism's validated ``Params``.
        Returns: a count of at least 1, or None to keep every record.
        Raises: nothing for valid parameters (the registry's probe calls it)."""
        raise NotImplementedError

    def weights(self, count: int, params: BaseModel) -> tuple[float, ...] | None:
        """The weight of each of ``count`` records, oldest first, as the reader counts them.

        Returns: ``count`` weights in (0, 1], or None: each counts fully and is shown as it
        is. Raises: nothing for valid parameters."""
        return None

    def weigh(
        self, records: Sequence[RecordFacts], now: int, params: BaseModel
    ) -> tuple[float, ...] | None:
        """The weight of each record, oldest first, read in round ``now``: by default by
        position alone (``weights``). Override it to weigh by a record's age in rounds, its
        writer, or the writers' diversity.

        Returns: one weight in (0, 1] a record, or None: each counts fully and is shown as
        it is. Raises: nothing for valid parameters (the registry's probe calls it)."""
        return self.weights(len(records), params)

    def weigh_with(
        self,
        records: Sequence[RecordFacts],
        now: int,
        params: BaseModel,
        writers: WriterLedger | None,
    ) -> tuple[float, ...] | None:
        """``weigh``, for a mechanism that also reads what the history set knows of its
        writers (``reads_writers``; ``writers`` is None for one that does not)."""
        return self.weigh(records, now, params)

    def penalty(self, params: BaseModel) -> int:
        """Low records shown before any of a platform's own (0: none)."""
        return 0

    def switched_off(self, params: BaseModel) -> bool:
        """Whether these parameters switch the mechanism off, leaving the window's records
        as they are (its user agents are then not told of any weighing either)."""
        return False

    def legacy(self, decay: float) -> dict[str, float]:
        """The parameters of the older settings form (``market.reputation_decay``)."""
        return {}


@dataclass(frozen=True)
class Window(ReputationMechanism):
    """The paper's mechanism: the last W records of a platform, each counted alike."""

    def kept(self, window: int, params: BaseModel) -> int | None:
        return window


@dataclass(frozen=True)
class EveryRecord(ReputationMechanism):
    """Every record of a platform, each counted alike."""

    Params: type[BaseModel] = NewcomerParams

    def kept(self, window: int, params: BaseModel) -> int | None:
        return None

    def penalty(self, params: BaseModel) -> int:
        assert isinstance(params, NewcomerParams)
        return params.newcomer_low


@dataclass(frozen=True)
class Decay(EveryRecord):
    """Every record, weighed by how many newer ones there are."""

    Params: type[BaseModel] = DecayParams

    def kept(self, window: int, params: BaseModel) -> int | None:
        assert isinstance(params, DecayParams)
        return math.ceil(math.log(FORGOTTEN) / math.log(params.rate))

    def weights(self, count: int, params: BaseModel) -> tuple[float, ...] | None:
        assert isinstance(params, DecayParams)
        newest = count - 1
        return tuple(params.rate ** (newest - i) for i in range(count))

    def legacy(self, decay: float) -> dict[str, float]:
        return {"rate": decay}


@dataclass(frozen=True)
class Oracle(Window):
    """Keeps the last W records, as the window does, but its records are written by a
    referee who knows what each user wanted (``market.written.oracle``), which no deployed
    market could run; a ceiling for another mechanism only where a paired contrast shows it."""

    knows_targets: ClassVar[bool] = True


def probe(item: ReputationMechanism, params: BaseModel) -> None:
    """The contract a mechanism must keep, checked once per use with its parameters: a
    kept count of at least 1 (or None), ``count`` weights in (0, 1] (or None), and a
    penalty that is a count."""
    kept = item.kept(10, params)
    if kept is not None and (not isinstance(kept, int) or kept < 1):
        raise ValueError(f"kept(10) gave {kept!r}; it must be a count of at least 1, or None")
    writers: tuple[Writer, ...] = ("penalty", "user", "forged", "user", "oracle", "user", "user")
    for count in (0, 1, 7):
        facts = [
            RecordFacts(10 * i, writers[i], "P1", f"a{i % 3}", ("high", "low")[i % 2])
            for i in range(count)
        ]
        ledger = WriterLedger() if item.reads_writers else None
        if ledger is not None:
            for fact in facts[1:]:
                ledger.add(fact.about, fact.author, fact.label, fact.writer == "user")
        weights = item.weigh_with(facts, 10 * count + 5, params, ledger)
        if weights is None:
            continue
        if len(weights) != count:
            raise ValueError(f"weigh({count} records) gave {len(weights)} weights, not {count}")
        bad = [w for w in weights if not (isinstance(w, float | int) and 0 < w <= 1)]
        if bad:
            raise ValueError(f"weigh({count} records) gave {bad[:3]}: each must be in (0, 1]")
    penalty = item.penalty(params)
    if not isinstance(penalty, int) or penalty < 0:
        raise ValueError(f"penalty gave {penalty!r}; it must be a count of at least 0")


MECHANISMS: Registry[ReputationMechanism] = Registry(
    "reputation mechanism", "recmarket.reputation", ReputationMechanism, lambda m: m.name, probe
)
WINDOW = MECHANISMS.register(Window("window"))
BETA = MECHANISMS.register(EveryRecord("beta", "every record counts alike"))
DECAY = MECHANISMS.register(
    Decay("decay", "a record counts by its weight: older records count less")
)
ORACLE = MECHANISMS.register(
    Oracle("oracle", "each record says whether the platform ranked the wanted item fairly")
)


def mechanism(name: str) -> ReputationMechanism:
    """The registered mechanism of this name; an unknown name fails with the known ones."""
    return MECHANISMS.get(name)


# A mechanism name in a contract or a setting: any registered mechanism, stored as its name.
MechanismName = Annotated[str, NameIn(MECHANISMS)]


class ReputationSetting(VariantSetting):
    """``[market.reputation]``: a mechanism and its parameters."""

    REGISTRY = MECHANISMS
    KEY = "mechanism"
    mechanism: MechanismName = Field("window", description="a registered reputation mechanism")
