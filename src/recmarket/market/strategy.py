"""Adaptive platforms (issue 12): each chooses its presentation before every proposal and
learns from its own proposals' fate.

An arm is a presentation policy and, for the offline platform, a claim intensity within it
(how far Strict shades or Exaggeration lifts a claim from the platform's reading; Balanced
claims its reading, so it has one arm). A platform observes only what a platform would: for
each of its proposals, whether it was shortlisted, ranked first and bought. The reward is
one of those (``market.reward``).

Learners update in batches: a platform proposing in round t knows the fate of its proposals
of every *period* (``learning_period`` rounds) that ended before t's period began. Within a
period the episodes of different reputation streams run concurrently, so a batch update is
what makes every choice independent of which episode finished first: the records of a run
are the same whatever the interleaving, on resume, and on a cluster. Each choice draws from
a stream keyed by the episode and the platform.
"""

from __future__ import annotations

from dataclasses import dataclass

from recmarket.data.episodes import Request
from recmarket.market.build import DomainMarket, request_key
from recmarket.market.learning import Learner, Observation, learner, reward
from recmarket.market.outcome import Outcome
from recmarket.market.settings import MarketConfig
from recmarket.policies import PAPER_POLICIES, policy
from recmarket.streams import Draws, Stream, call_seed

# One adaptive platform's lesson from one episode: the arm it played, and its reward
# (None when the episode failed before the decision and showed the platform nothing).
Lesson = tuple[str, float | None]


@dataclass(frozen=True)
class Arm:
    policy: str
    intensity: float = 1.0

    @property
    def name(self) -> str:
        """``strict``, or ``strict:0.5`` at another intensity than the calibrated one."""
        return self.policy if self.intensity == 1.0 else f"{self.policy}:{self.intensity:g}"


def arms(intensities: tuple[float, ...]) -> tuple[Arm, ...]:
    """The paper's three policies, each at every intensity where its claim rule varies
    with intensity (Balanced claims its reading: one arm). Installed policies are not
    arms: installing a package must not change what an adaptive platform can choose."""
    return tuple(
        Arm(name, intensity)
        for name in PAPER_POLICIES
        for intensity in (intensities if policy(name).claim.varies else (1.0,))
    )


def policy_of(arm_name: str) -> str:
    return arm_name.split(":")[0]


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


class Strategies:
    """The adaptive platforms of one domain's market, and what they have learnt.

    ``observe`` hands over an episode's lessons as soon as it finishes (or, on resume, as
    stored); ``choose`` first applies the lessons of every finished period before the
    request's own, in schedule order. A period must be complete when a later one chooses:
    the runner plays periods one after the other.
    """

    def __init__(self, market: DomainMarket) -> None:
        cfg = market.config
        self.market, self.period = market, cfg.learning_period
        self.arms = arms(cfg.claim_intensities)
        names = [a.name for a in self.arms]
        self.index = {name: i for i, name in enumerate(names)}
        self.learners: dict[str, Learner] = {
            seat.platform_id: learner(cfg.learning_rule, names)
            for seat in market.seats
            if seat.policy is None
        }
        self.rounds = len(market.requests)
        self.learned = 0  # periods applied
        self.lessons: dict[int, dict[str, Lesson]] = {}  # by order, until applied
        self.draws = Draws()  # a choice takes all its draws before anything else runs

    def adaptive(self, platform_id: str) -> bool:
        return platform_id in self.learners

    def choose(self, request: Request, platform: int) -> Arm:
        self._advance(request.order // self.period)
        key = request_key(request)
        gen = self.draws(
            call_seed(self.market.seed, self.market.domain.name, Stream.STRATEGY, key, platform)
        )
        return self.arms[self.learners[self.market.seats[platform].platform_id].choose(gen)]

    def observe(self, order: int, lessons: dict[str, Lesson]) -> None:
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
                        self.learners[platform_id].update(self.index[arm], value)
            self.learned += 1
