"""Market structure settings, owned by the market layer; ``config`` composes them."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationInfo,
    field_validator,
    model_serializer,
    model_validator,
)

from recmarket.catalogue.attacks import AttackSetting
from recmarket.catalogue.learning import LearningSetting, RewardKind
from recmarket.catalogue.listing_copy import CopySetting
from recmarket.catalogue.mechanisms import ReputationSetting
from recmarket.catalogue.policies import PolicyName
from recmarket.catalogue.strategies import PLATFORM_STRATEGIES, StrategyName, strategy_kind
from recmarket.hashing import ADDED_LATER
from recmarket.market.compositions import (
    Composition,
    assign_policies,
    parse_policy,
    platform_ids,
)
from recmarket.market.older_forms import read_older


class Entrant(BaseModel):
    """A platform that joins the market late: ``strict@200`` proposes from round 201 on (the
    first 200 rounds of each domain's schedule are played without it), with the Strict
    policy kept fixed; ``adaptive@200`` learns its presentation like an adaptive incumbent.
    ``plays`` is what it plays: the policy of a fixed entrant, or the name of an adaptive
    platform strategy."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    plays: StrategyName | PolicyName
    after_rounds: int = Field(ge=0, description="rounds played before it enters")

    @model_validator(mode="before")
    @classmethod
    def _from_text(cls, value: Any) -> Any:
        if not isinstance(value, str):
            return value
        name, at, rounds = value.partition("@")
        if not at or not rounds.strip().isdigit():
            raise ValueError(
                f"entrant {value!r} is not POLICY@ROUNDS or adaptive@ROUNDS (e.g. strict@200)"
            )
        name = name.strip().lower()
        plays = name if name in PLATFORM_STRATEGIES else parse_policy(name)
        return {"plays": plays, "after_rounds": int(rounds)}

    @field_validator("plays")
    @classmethod
    def _adaptive_or_a_policy(cls, name: str) -> str:
        if name in PLATFORM_STRATEGIES and not strategy_kind(name).adaptive:
            raise ValueError(f"a fixed entrant is named by its policy (strict@200), not {name!r}")
        return name

    @model_serializer
    def _as_text(self) -> str:
        return f"{self.plays}@{self.after_rounds}"

    @property
    def policy(self) -> str | None:
        """The fixed policy's name, or None for an adaptive entrant."""
        return None if self.plays in PLATFORM_STRATEGIES else self.plays

    @property
    def kind(self) -> str:
        """The entrant's platform strategy: the adaptive one it names, or fixed (with its
        policy)."""
        return self.plays if self.plays in PLATFORM_STRATEGIES else "fixed"


class MarketConfig(BaseModel):
    """Market structure (Section 4.1, Appendix A.1); defaults are the paper's."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    n_platforms: int = Field(6, ge=1, le=1000, description="N: competing platforms")
    shortlist_k: int = Field(3, ge=1, description="K: shortlist capacity")
    platform_centric_j: int | None = Field(
        None, ge=1, description="J: items shown by the entered platform (default J = K)"
    )
    catalog_cap: int = Field(30_000, ge=1, description="C: regular items per catalog")
    rho: float = Field(0.1, ge=0.0, le=1.0, description="copy probability to other platforms")
    p_hit: float = Field(0.8, ge=0.0, le=1.0, description="controlled target inclusion")
    top_l: int = Field(5, ge=1, description="L: retrieval shortlist per platform")
    tau: float = Field(
        0.1,
        ge=1e-3,
        le=1e3,
        allow_inf_nan=False,
        description="Gumbel temperature (below 0.001 the draw is an argmax, above 1000 uniform)",
    )
    memory_window: int = Field(10, ge=1, description="W: reputation records per platform")
    reputation: Annotated[ReputationSetting | None, ADDED_LATER] = Field(
        None,
        description="how records are weighed, a mechanism with its parameters ({ mechanism = "
        '"decay", params = { rate = 0.8 } }): window (the last W alike; none: the window), '
        "beta (all alike), decay (discounted by age), oracle, or an installed one",
    )
    composition: Composition = Field(
        "equal", description="named composition or one policy per platform"
    )
    rotation: int = Field(0, ge=0, description="cyclic inventory rotation (R1 = 1, R2 = 2)")
    long_term_weight: float = Field(
        0.25, ge=0.0, le=1.0, description="weight of the long-term need in the search vector"
    )
    platform_strategy: Annotated[StrategyName, ADDED_LATER] = Field(
        "fixed",
        description="fixed: each platform keeps its composition's policy; adaptive: each "
        "learns which presentation to use from its own proposals' fate",
    )
    learning: Annotated[LearningSetting | None, ADDED_LATER] = Field(
        None,
        description='adaptive platforms\' learning rule with its parameters ({ rule = "exp3", '
        "params = { gamma = 0.2 } }): thompson (none: thompson), exp3, or an installed one",
    )
    reward: Annotated[RewardKind, ADDED_LATER] = Field(
        "top1",
        description="what an adaptive platform learns from: ranked first, bought, or a mix",
    )
    reward_top1_weight: Annotated[float, ADDED_LATER] = Field(
        0.5, ge=0.0, le=1.0, description="mix: the weight of being ranked first"
    )
    learning_period: Annotated[int, ADDED_LATER] = Field(
        12, ge=1, description="rounds between adaptive platforms' updates (one batch)"
    )
    claim_intensities: Annotated[tuple[float, ...], ADDED_LATER] = Field(
        (1.0,),
        min_length=1,
        description="offline platforms: how far Strict shades and Exaggeration lifts a "
        "claim, as a multiple of the calibrated distance; adaptive ones choose among them",
    )
    attacks: Annotated[dict[str, AttackSetting], ADDED_LATER] = Field(
        {},
        description="seat -> the attack it plays against the records, with its parameters "
        '(P4 = { attack = "whitewash", params = { below = 0.1 } }): null, '
        "bait-and-switch, whitewash, sybil, forge, inject, or an installed one",
    )
    listing_copy: Annotated[dict[str, CopySetting], ADDED_LATER] = Field(
        {},
        description="seat -> how it rewrites its listings, with its parameters (P4 = { copy = "
        '"copy-stuffing", params = { intensity = 0.5 } }; a table [market.copy.P4]): '
        "copy-none, copy-emphasis, copy-stuffing, copy-optimised, or an installed one",
    )
    shuffle_candidates: Annotated[bool, ADDED_LATER] = Field(
        True,
        description="the user agent sees the candidates in a random order (the paper's); "
        "false: in platform order, P1 first, which lets position favour low-numbered seats",
    )
    proof_of_purchase: Annotated[bool, ADDED_LATER] = Field(
        False,
        description="only a purchase in the market writes a record: forged records (a fake "
        "user bought nothing) are refused, under any scope",
    )
    newcomer_wait: Annotated[int, ADDED_LATER] = Field(
        0,
        ge=0,
        description="rounds a platform that re-enters under a new name waits before it may "
        "propose (a market's cost for new identities; 0: none)",
    )
    entrants: Annotated[tuple[Entrant, ...], ADDED_LATER] = Field(
        (),
        description="platforms that join late, comma-separated POLICY@ROUNDS or "
        "adaptive@ROUNDS (strict@200 proposes from round 201)",
    )

    @field_validator("claim_intensities")
    @classmethod
    def _intensities(cls, values: tuple[float, ...]) -> tuple[float, ...]:
        bad = [v for v in values if not 0 < v <= 2]
        if bad or len(set(values)) != len(values):
            raise ValueError(
                f"claim intensities must be distinct multiples in (0, 2], not {list(values)}"
            )
        return values

    @field_validator("entrants", mode="before")
    @classmethod
    def _entrant_list(cls, value: Any) -> Any:
        if isinstance(value, str):  # the command line's and config files' short form
            return tuple(part for part in value.split(",") if part.strip())
        return value

    @field_validator("entrants")
    @classmethod
    def _in_order_of_entry(cls, entrants: tuple[Entrant, ...]) -> tuple[Entrant, ...]:
        """Entrants are numbered in order of entry (P(N+1) enters first), so the platforms
        in the market at any round are a prefix of the roster."""
        return tuple(sorted(entrants, key=lambda e: e.after_rounds))

    @model_validator(mode="before")
    @classmethod
    def _older_forms(cls, value: Any) -> Any:
        return read_older(value)

    @model_validator(mode="before")
    @classmethod
    def _copy_as_written(cls, value: Any) -> Any:
        """``copy`` is how a config names ``listing_copy`` (``[market.copy.P4]``): the field
        cannot take pydantic's own method's name."""
        if isinstance(value, dict) and "copy" in value:
            if "listing_copy" in value:
                raise ValueError("market: give copy or listing_copy, not both")
            value = {("listing_copy" if k == "copy" else k): v for k, v in value.items()}
        return value

    @model_validator(mode="after")
    def _attacks_fit(self) -> MarketConfig:
        incumbents = platform_ids(self.n_platforms)
        for seat, setting in self.attacks.items():
            if seat not in incumbents:
                raise ValueError(
                    f"market.attacks: {seat!r} is not a seat of this market; the seats are "
                    f"{', '.join(incumbents)}"
                )
            rival = getattr(setting.built(), "rival", None)
            if rival is not None and (rival not in incumbents or rival == seat):
                raise ValueError(
                    f"market.attacks.{seat}: rival {rival!r} must be another seat of "
                    f"{', '.join(incumbents)}"
                )
        for seat in self.listing_copy:
            if seat not in incumbents:
                raise ValueError(
                    f"market.copy: {seat!r} is not a seat of this market; the seats are "
                    f"{', '.join(incumbents)}"
                )
        if self.sybil_copies and self.entrants:
            raise ValueError(
                "market.attacks: Sybil seats and late entrants cannot share a market (both "
                "add seats after the incumbents); drop one"
            )
        return self

    @property
    def sybil_copies(self) -> int:
        """Seats the Sybil owners add after the incumbents, in all."""
        return sum(a.made.copies(a.built()) for a in self.attacks.values())

    @property
    def learning_in_use(self) -> LearningSetting:
        """The learning rule and parameters in force (Thompson sampling unless set)."""
        return self.learning or LearningSetting(rule="thompson")

    @property
    def reputation_in_use(self) -> ReputationSetting:
        """The mechanism and parameters in force (the paper's window unless set)."""
        return self.reputation or ReputationSetting(mechanism="window")

    @property
    def j(self) -> int:
        """J, the items a platform shows under platform-centric access (K unless set)."""
        return self.platform_centric_j if self.platform_centric_j is not None else self.shortlist_k

    @field_validator("shortlist_k")
    @classmethod
    def _k_within_n(cls, k: int, info: ValidationInfo) -> int:
        n = info.data.get("n_platforms")
        if n is not None and k > n:
            raise ValueError(
                f"K={k} cannot exceed the number of platforms N={n}: each platform submits "
                "one candidate"
            )
        return k

    @field_validator("composition")
    @classmethod
    def _known_composition(
        cls, value: str | tuple[str, ...], info: ValidationInfo
    ) -> str | tuple[str, ...]:
        n = info.data.get("n_platforms")  # its policies are checked by its type (Composition)
        if n is not None:
            assign_policies(value, n)
        return value

    @property
    def entrant_ids(self) -> tuple[str, ...]:
        """The entrants' platform ids, after the incumbents', in order of entry."""
        return platform_ids(self.n_platforms + len(self.entrants))[self.n_platforms :]

    @property
    def added_seats(self) -> int:
        """Seats after the incumbents: Sybil copies or late entrants (never both)."""
        return self.sybil_copies + len(self.entrants)

    @property
    def adaptive(self) -> bool:
        """Whether any platform's conduct depends on what it observes (incumbents that
        learn, an adaptive entrant, or an attack that reacts)."""
        kinds = (self.platform_strategy, *(e.kind for e in self.entrants))
        reacts = any(a.made.adaptive for a in self.attacks.values())
        return reacts or any(strategy_kind(kind).adaptive for kind in kinds)

    @property
    def policies(self) -> tuple[str, ...]:
        """The policy attached to each platform id P1..PN."""
        return assign_policies(self.composition, self.n_platforms)
