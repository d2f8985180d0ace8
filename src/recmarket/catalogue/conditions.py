"""The evaluation conditions of Section 4.1 as objects: what each lets a round do.

A condition is a combination of features of the protocol, and code asks for the feature,
not the name: whether a user agent queries every platform and shortlists K across them
(otherwise the user enters one uniformly drawn platform and sees its J items:
Platform-Centric), whether a purchase leaves a claim-reliability record that later
shortlists read (LocalRep), and whether the shortlist is asked under the Rep instruction
(Appendix C.4's Rep-only addition: LocalRep always; rep-instruction, its instruction with
every history empty, so LocalRep's effect splits into the instruction's and the records').
The names stay what runs store and commands take.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from pydantic import BaseModel

from recmarket.catalogue.registry import NameIn, NoParams, Registry
from recmarket.vocabulary import Condition


@dataclass(frozen=True)
class MarketCondition:
    """An evaluation condition: its name and label, whether a user agent shortlists across
    platforms, whether purchases leave records that later shortlists read, and whether the
    shortlist is asked under the Rep instruction without them."""

    name: Condition
    label: str  # as the paper and the figures name it
    user_agent: bool  # a user agent shortlists across every platform
    reputation: bool  # purchases leave records that later shortlists read
    Params: type[BaseModel] = NoParams  # its parameters' model: it takes none
    instruction_only: bool = False  # the Rep instruction, every platform's history empty

    @property
    def instructed(self) -> bool:
        """Whether the shortlist is asked under the Rep instruction (with records or not)."""
        return self.reputation or self.instruction_only


def probe(item: MarketCondition, params: object) -> None:
    """The contract, checked when a run names the condition: a label, and records only
    where a user agent reads them."""
    if not item.label.strip():
        raise ValueError("its label is empty")
    if item.instructed and not item.user_agent:
        raise ValueError(
            "records and the Rep instruction are read by a user agent's shortlist; it has none"
        )


CONDITIONS: Registry[MarketCondition] = Registry(
    "condition", "recmarket.conditions", MarketCondition, lambda c: c.name, probe
)
for built_in in (
    MarketCondition("platform-centric", "Platform-Centric", user_agent=False, reputation=False),
    MarketCondition("no-rep", "NoRep", user_agent=True, reputation=False),
    MarketCondition("local-rep", "LocalRep", user_agent=True, reputation=True),
    MarketCondition(
        "rep-instruction",
        "RepInstruction",
        user_agent=True,
        reputation=False,
        instruction_only=True,
    ),
):
    CONDITIONS.register(built_in)

# A condition's name in a setting: any registered condition.
ConditionName = Annotated[str, NameIn(CONDITIONS, probed=True)]


def condition(name: str) -> MarketCondition:
    """The condition of this name (settings have validated it); an unknown name fails with
    the known ones."""
    return CONDITIONS.get(name)
