"""A product domain: the join of one review file with its meta file.

Reviews join meta on ``parent_asin``. Reviewed items without a meta record are counted and
excluded, since no platform could show evidence for them. The item universe of a domain is
every item with meta reviewed by a user who keeps at least the minimum number of
interactions: the items that can appear in histories, as targets, or as competitors.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from recmarket.data.items import Item, read_meta
from recmarket.data.raw import DataError, LoadIssues
from recmarket.data.reviews import ReviewTable, scan_reviews

SUFFIXES = (".jsonl", ".jsonl.gz", ".json", ".json.gz")
# What the reader keeps of a pair of files, versioned: a new version may load the same files
# as other reviews, so it is part of a run's identity on files of the user's own. 2: repeated
# reviews are found up to the text's spacing and case, and a line over 10 MB is skipped. 3:
# one review per user, item and time, the last line kept (an edited review replaces the
# earlier one, whatever its rating and text).
READER_VERSION = 3


@dataclass(frozen=True)
class DomainFiles:
    """A domain's review file and meta file."""

    name: str
    reviews: Path
    meta: Path


@dataclass
class LoadReport:
    """What loading one domain kept and dropped, for the user to see."""

    reviews_read: int = 0
    meta_items_used: int = 0
    reviews_without_meta: int = 0
    items_without_meta: int = 0
    review_issues: dict[str, int] = field(default_factory=dict)
    meta_issues: dict[str, int] = field(default_factory=dict)
    examples: list[str] = field(default_factory=list)

    @property
    def lines_skipped(self) -> int:
        """Lines skipped in both files, for every reason."""
        return sum(self.review_issues.values()) + sum(self.meta_issues.values())


@dataclass(frozen=True)
class Domain:
    """A loaded domain: its item universe, the reviews of users with enough of them, and
    what loading skipped."""

    name: str
    files: DomainFiles
    items: tuple[Item, ...]  # the item universe, sorted by parent_asin
    interactions: ReviewTable  # reviews of universe items by users with enough interactions
    item_index: np.ndarray  # per interaction, the index of its item in ``items``
    report: LoadReport

    @property
    def n_users(self) -> int:
        """Users with enough interactions to be simulated."""
        return len(np.unique(self.interactions.user))


def _find(directory: Path, stem: str) -> Path | None:
    paths = (directory / f"{stem}{suffix}" for suffix in SUFFIXES)
    return next((p for p in paths if p.is_file()), None)


def find_domains(directory: Path) -> list[DomainFiles]:
    """Every category in ``directory`` with both a review file and a meta file."""
    if not directory.is_dir():
        raise DataError(f"{directory}: data directory does not exist")
    found = []
    for meta in sorted(directory.glob("meta_*")):
        name = meta.name.removeprefix("meta_").split(".")[0]
        reviews = _find(directory, name)
        if reviews is not None and meta == _find(directory, f"meta_{name}"):
            found.append(DomainFiles(name, reviews, meta))
    return found


def domain_files(directory: Path, name: str) -> DomainFiles:
    """The files of domain ``name`` in ``directory``, gzipped or plain; a missing one is
    named with the domains that are there."""
    reviews, meta = _find(directory, name), _find(directory, f"meta_{name}")
    if reviews is None or meta is None:
        missing = f"{name}.jsonl[.gz]" if reviews is None else f"meta_{name}.jsonl[.gz]"
        available = ", ".join(d.name for d in find_domains(directory)) or "none"
        raise DataError(f"{directory}: no {missing} for domain {name!r} (available: {available})")
    return DomainFiles(name, reviews, meta)


def _users_with_at_least(users: np.ndarray, minimum: int) -> np.ndarray:
    """Mask of rows whose user has at least ``minimum`` rows."""
    _, inverse, counts = np.unique(users, return_inverse=True, return_counts=True)
    return counts[inverse] >= minimum


def load_domain(files: DomainFiles, *, min_interactions: int = 5, strict: bool = False) -> Domain:
    """Load a domain: reviews scanned and deduplicated, items joined from the meta file,
    users with at least ``min_interactions`` kept; ``strict`` stops at the first bad
    line."""
    review_issues = LoadIssues(files.reviews, strict)
    reviews = scan_reviews(files.reviews, review_issues)
    if not len(reviews):
        first = f"; first: {review_issues.examples[0]}" if review_issues.examples else ""
        raise DataError(
            f"{files.reviews}: no usable review line ({review_issues.skipped} "
            f"skipped{first}); is this an Amazon Reviews'23 review file?"
        )
    active = reviews.select(_users_with_at_least(reviews.user, min_interactions))
    if not len(active):
        raise DataError(
            f"{files.reviews}: no eligible user: nobody has {min_interactions} usable reviews"
        )
    wanted = set(np.unique(active.item).tolist())

    meta_issues = LoadIssues(files.meta, strict)
    meta = read_meta(files.meta, wanted, meta_issues)
    if not meta and len(reviews):
        raise DataError(
            f"{files.meta}: no meta record matches any reviewed item of {files.reviews.name} "
            "(reviews join meta on parent_asin)"
        )
    has_meta = np.isin(active.item, np.fromiter(meta, dtype=np.int64, count=len(meta)))
    joined = active.select(has_meta)
    joined = joined.select(_users_with_at_least(joined.user, min_interactions))

    used = {int(k) for k in np.unique(joined.item)}
    items = sorted((meta[k] for k in used), key=lambda it: it.parent_asin)
    position = {id(it): i for i, it in enumerate(items)}
    lookup = {k: position[id(meta[k])] for k in used}
    item_index = np.fromiter(
        (lookup[int(k)] for k in joined.item), dtype=np.int64, count=len(joined)
    )
    report = LoadReport(
        reviews_read=len(reviews),
        meta_items_used=len(items),
        reviews_without_meta=int((~has_meta).sum()),
        items_without_meta=len(np.unique(active.item[~has_meta])),
        review_issues=dict(review_issues.counts),
        meta_issues=dict(meta_issues.counts),
        examples=review_issues.examples + meta_issues.examples,
    )
    return Domain(files.name, files, tuple(items), joined, item_index, report)
