"""The platforms' strategies in the round: each seat chooses its presentation
before every proposal, and the adaptive ones learn from their own proposals' fate.

A platform observes only what a platform would: for each of its proposals, whether it was
shortlisted, ranked first and bought. The reward is one of those (``market.reward``).

Learners update in batches: a platform proposing in round t knows the fate of its proposals
of every *period* (``learning_period`` rounds) that ended before t's period began. Within a
period the episodes of different reputation streams run concurrently, so a batch update is
what makes every choice independent of which episode finished first: the records of a run
are the same whatever the interleaving, on resume, and on a cluster. Each choice draws from
a stream keyed by the episode and the platform.
"""

from __future__ import annotations

import numpy as np

from recmarket.catalogue.learning import Observation, reward
from recmarket.catalogue.strategies import Arm, PlatformStrategy, strategy_kind
from recmarket.data.episodes import Request
from recmarket.market.build import DomainMarket, Seat, request_key
from recmarket.market.outcome import Outcome
from recmarket.market.settings import MarketConfig
from recmarket.streams import Draws, Stream, call_seed

# One adaptive platform's lesson from one episode: the arm it played, and its reward
# (None when the episode failed before the decision and showed the platform nothing).
Lesson = tuple[str, float | None]


def lessons(episode: Outcome, cfg: MarketConfig) -> dict[str, Lesson]:
    """Each adaptive proposer's arm and reward: whether its proposal was shortlisted, ranked
    first and bought, which is all a platform sees; no reward where the episode ended
    before the decision."""
    top1 = episode.shown[0].platform_id if episode.shown else None
    bought = episode.purchased.platform_id if episode.purchased else None
    shown = {p.platform_id for p in episode.shown}

    def observed(platform: str) -> float | None:
        if episode.decision is None:
            return None
        seen = Observation(platform in shown, platform == top1, platform == bought)
        return reward(seen, cfg.reward, cfg.reward_top1_weight)

    return {platform: (arm, observed(platform)) for platform, arm in episode.choices.items()}


def seat_strategy(seat: Seat, cfg: MarketConfig) -> PlatformStrategy:
    """A seat's conduct: its attack's, where it plays one; else its platform strategy's."""
    if seat.attack is not None:  # an incumbent's: it has its composition's policy
        assert seat.policy is not None
        return seat.attack.made.strategy(seat.policy, seat.attack.built())
    return strategy_kind(seat.strategy).make(
        seat.policy, cfg.claim_intensities, cfg.learning_in_use
    )


class Strategies:
    """The strategy of every seat of one domain's market, and what the adaptive ones have
    learnt.

    ``choose`` answers for any seat; for an adaptive one it first applies the lessons of
    every finished period before the request's own, in schedule order. ``observe`` hands
    over an episode's lessons as soon as it finishes (or, on resume, as stored). A period
    must be complete when a later one chooses: the runner plays periods one after the
    other wherever a seat adapts.
    """

    def __init__(self, market: DomainMarket) -> None:
        cfg = market.config
        self.market, self.period = market, cfg.learning_period
        self.seats: tuple[PlatformStrategy, ...] = tuple(
            seat_strategy(seat, cfg) for seat in market.seats
        )
        self.by_id = {seat.platform_id: s for seat, s in zip(market.seats, self.seats, strict=True)}
        self.adaptive = any(s.adaptive for s in self.seats)  # whether lessons are kept
        self.rounds = len(market.requests)
        self.learned = 0  # periods applied
        self.lessons: dict[int, dict[str, Lesson]] = {}  # by order, until applied
        self.draws = Draws()  # a choice takes all its draws before anything else runs
        self.waiting: dict[int, int] = {}  # seat -> the round a new name may first propose

    def choose(self, request: Request, platform: int) -> Arm:
        """The arm seat ``platform`` presents the request with; an adaptive seat first
        learns every period before the request's."""
        strategy = self.seats[platform]
        if strategy.adaptive:
            self._advance(request.order // self.period)

        def draw() -> np.random.Generator:  # the episode's generator for this choice
            key = request_key(request)
            market = self.market
            return self.draws(
                call_seed(market.seed, market.domain.name, Stream.STRATEGY, key, platform)
            )

        return strategy.choose(draw)

    def identity(self, request: Request, platform: int) -> str:
        """The name the seat shows at this request."""
        strategy = self.seats[platform]
        if strategy.adaptive:
            self._advance(request.order // self.period)
        return strategy.identity(self.market.seats[platform].platform_id)

    def present(self, request: Request, platform: int) -> bool:
        """Whether the seat proposes at this request: a whitewasher may sit out rounds of its
        own, and the market makes every new name wait ``market.newcomer_wait`` rounds."""
        strategy = self.seats[platform]
        if strategy.adaptive:
            self._advance(request.order // self.period)
        return strategy.present(request.order) and request.order >= self.waiting.get(platform, 0)

    def observe(self, order: int, lessons: dict[str, Lesson]) -> None:
        """Keep the lessons of round ``order`` for the periods they close."""
        self.lessons[order] = lessons

    def _advance(self, period: int) -> None:
        while self.learned < period:
            first = self.learned * self.period
            orders = range(first, min(first + self.period, self.rounds))
            missing = [o for o in orders if o not in self.lessons]
            if missing:
                raise RuntimeError(
                    f"adaptive platforms cannot choose in period {period}: rounds "
                    f"{[o + 1 for o in missing[:5]]} of period {self.learned} have not finished"
                )
            for order in orders:
                for platform_id, (arm, value) in sorted(self.lessons.pop(order).items()):
                    if value is not None:
                        self.by_id[platform_id].observe(arm, value)
            self.learned += 1
            start = self.learned * self.period
            for index, (seat, strategy) in enumerate(
                zip(self.market.seats, self.seats, strict=True)
            ):
                if strategy.adaptive:
                    shown = strategy.identity(seat.platform_id)
                    strategy.period_ended(start)
                    if strategy.identity(seat.platform_id) != shown:  # a new name: it waits
                        self.waiting[index] = start + self.market.config.newcomer_wait
