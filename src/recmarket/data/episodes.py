"""Episodes and requests (Section 4.1, Appendix B.1).

Per domain, each user's interactions are ordered by time (ties by file line); users with at
least ``min_interactions`` are kept; at most the ``max_interactions`` most recent are kept;
the last of those rated at least ``target_min_rating`` is the held-out target, and the
interactions before it are the observable history (interactions after it are dropped),
less every earlier review of the target's own item: a person who reviewed a product
twice (a re-purchase, a variant under one parent item) would otherwise carry the answer
in their history, for the need, the request and the ranker to read (``repeated_targets``
counts such episodes, which ``recmarket data list`` shows).

R requests are sampled per domain without replacement and dealt round-robin to the six
profiles, then to the S simulated users of each, so both stay balanced within one; each
simulated user owns its requests in target-time order. The sample for a smaller R is a
prefix of the sample for a larger one, so scaled runs use a subset of the full requests.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from recmarket.data.domain import Domain
from recmarket.data.raw import DataError
from recmarket.data.reviews import read_review_lines
from recmarket.data.settings import EpisodeConfig
from recmarket.profiles import PROFILE_NAMES
from recmarket.streams import Stream, rng


# Requests are plain frozen records with slots, not pydantic models: a long run holds
# a hundred thousand of them with ten interactions each, and a model instance cost a
# kilobyte before its texts (its field set alone 728 bytes); they are built here from data
# the loader has validated, and never read from outside.
@dataclass(frozen=True, slots=True)
class Interaction:
    """One review of a user's: the item, its rating and time, and the review's text."""

    parent_asin: str
    item_index: int
    title: str
    rating: float
    timestamp: int
    review_title: str
    review_text: str
    store: str | None = None  # the listing's store, where the data has one
    price: float | None = None  # the listing's price, where the data has one


@dataclass(frozen=True, slots=True)
class Episode:
    """A user's held-out target with the history before it: what one request is built from."""

    episode_id: str
    domain: str
    user_id: str
    history: tuple[Interaction, ...]
    target: Interaction


@dataclass(frozen=True, slots=True)
class Request:
    """One episode as issued by a simulated user."""

    episode: Episode
    profile: str
    sim_user: int  # 0 .. 6*S-1; users 0..S-1 have the first profile, and so on
    round: int  # position in this simulated user's own sequence, from 0
    order: int  # position in the domain's global schedule (round-robin over users)


@dataclass(frozen=True)
class EpisodeIndex:
    """Eligible episodes as positions into the domain's interactions (no text yet)."""

    order: np.ndarray  # interactions sorted by (user, time, line)
    window_start: np.ndarray  # per episode, first kept position in ``order``
    target: np.ndarray  # per episode, position of the target in ``order``

    def __len__(self) -> int:
        return len(self.target)

    def span(self, episode: int, item_index: np.ndarray) -> np.ndarray:
        """The episode's rows, oldest first, the target last, without the earlier reviews
        of the target's own item (``item_index``: each interaction's item)."""
        target = self.order[self.target[episode]]
        before = self.order[self.window_start[episode] : self.target[episode]]
        kept = before[item_index[before] != item_index[target]]
        return np.r_[kept, target]


def index_episodes(domain: Domain, cfg: EpisodeConfig) -> EpisodeIndex:
    """Apply the episode rules to every user of the domain, vectorised."""
    rows = domain.interactions
    order = np.lexsort((rows.line, rows.timestamp, rows.user))
    users, ratings = rows.user[order], rows.rating[order]
    if len(users) == 0:
        empty = np.zeros(0, dtype=np.int64)
        return EpisodeIndex(order, empty, empty)
    starts = np.flatnonzero(np.r_[True, users[1:] != users[:-1]])
    sizes = np.diff(np.r_[starts, len(users)])
    window_start = np.maximum(starts, starts + sizes - cfg.max_interactions)
    position = np.arange(len(users))
    in_window = position >= np.repeat(window_start, sizes)
    candidate = np.where(in_window & (ratings >= cfg.target_min_rating), position, -1)
    target = np.maximum.reduceat(candidate, starts)
    eligible = (sizes >= cfg.min_interactions) & (target >= 0)
    return EpisodeIndex(order, window_start[eligible], target[eligible])


def sample_requests(domain: Domain, cfg: EpisodeConfig, seed: int) -> list[Request]:
    """The domain's R requests, in global schedule order, with texts read from pass two."""
    index = index_episodes(domain, cfg)
    if len(index) < cfg.requests:
        if not len(index):
            raise DataError(
                f"domain {domain.name}: no eligible user (none has {cfg.min_interactions} "
                f"interactions with one rated >= {cfg.target_min_rating:g} among the last "
                f"{cfg.max_interactions})"
            )
        raise DataError(
            f"domain {domain.name}: {len(index)} eligible episodes, fewer than the "
            f"{cfg.requests} requests asked for; lower --requests or use a larger domain"
        )
    chosen = rng(seed, domain.name, Stream.EPISODE_SAMPLING).permutation(len(index))
    chosen = chosen[: cfg.requests]
    spans = [index.span(e, domain.item_index) for e in chosen]
    return schedule(read_episodes(domain, spans), cfg.users_per_profile)


def repeated_targets(domain: Domain, index: EpisodeIndex) -> int:
    """How many episodes' targets the person reviewed before, within the episode's window:
    the earlier reviews that episode construction takes out of the history."""
    if not len(index):
        return 0
    rows = domain.interactions
    users = rows.user[index.order]
    items = domain.item_index[index.order]
    # each position's previous position holding the same person and item (-1: none)
    by_pair = np.lexsort((np.arange(len(users)), items, users))
    same = (users[by_pair][1:] == users[by_pair][:-1]) & (items[by_pair][1:] == items[by_pair][:-1])
    previous = np.full(len(users), -1)
    previous[by_pair[1:][same]] = by_pair[:-1][same]
    return int(np.sum(previous[index.target] >= index.window_start))


def read_episodes(domain: Domain, spans: list[np.ndarray]) -> list[Episode]:
    """Episodes from spans of interaction rows (a user's, oldest first, the target last),
    with their review texts read in one pass over the file."""
    rows = domain.interactions
    lines = {int(rows.line[r]) for s in spans for r in s}
    texts = read_review_lines(domain.files.reviews, lines, ("user_id", "title", "text"))

    def interaction(row: int) -> Interaction:
        record = texts[int(rows.line[row])]
        item = domain.items[int(domain.item_index[row])]
        return Interaction(
            parent_asin=item.parent_asin,
            item_index=int(domain.item_index[row]),
            title=item.shown_title,
            rating=float(rows.rating[row]),
            timestamp=int(rows.timestamp[row]),
            review_title=str(record.get("title") or ""),
            review_text=str(record.get("text") or ""),
            store=item.store,
            price=item.price,
        )

    episodes = []
    for span in spans:
        user_id = texts[int(rows.line[span[-1]])]["user_id"]
        episodes.append(
            Episode(
                episode_id=f"{domain.name}/{user_id}",
                domain=domain.name,
                user_id=user_id,
                history=tuple(interaction(r) for r in span[:-1]),
                target=interaction(span[-1]),
            )
        )
    return episodes


def owners(requests: int, users_per_profile: int) -> list[int]:
    """The simulated user each of ``requests`` sampled episodes is dealt to: to profiles
    (i % 6), then to each profile's users, so both stay balanced within one."""
    n_profiles = len(PROFILE_NAMES)
    return [
        (i % n_profiles) * users_per_profile + (i // n_profiles) % users_per_profile
        for i in range(requests)
    ]


def episodes_before(requests: int, users_per_profile: int, rounds: int) -> int:
    """How many of a domain's episodes fall in its users' first ``rounds`` rounds: what a
    run holds of them once it has played that far (a user with fewer requests has fewer
    rounds)."""
    owned = Counter(owners(requests, users_per_profile))
    return sum(min(count, rounds) for count in owned.values())


def schedule(episodes: list[Episode], users_per_profile: int) -> list[Request]:
    """Deal episodes to users (``owners``); each user takes its episodes in target-time
    order, and the global order visits the users round-robin."""
    n_profiles = len(PROFILE_NAMES)
    owner = owners(len(episodes), users_per_profile)
    dealt = []
    for user in range(n_profiles * users_per_profile):
        own = sorted(
            (i for i in range(len(episodes)) if owner[i] == user),
            key=lambda i: (episodes[i].target.timestamp, i),
        )
        dealt += [(round_, user, episodes[i]) for round_, i in enumerate(own)]
    dealt.sort(key=lambda r: (r[0], r[1]))
    return [
        Request(
            episode=episode,
            profile=PROFILE_NAMES[user // users_per_profile],
            sim_user=user,
            round=round_,
            order=order,
        )
        for order, (round_, user, episode) in enumerate(dealt)
    ]
