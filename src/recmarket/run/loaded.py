"""What a process loads once and lends to every cell it runs: the embedder of each setting,
each domain's data, and the requests sampled from it for each episode setting and seed.

A reproduce worker runs dozens of cells over the same three domains, most of them on the
same requests. Reading a domain's files costs about as much as a few hundred of its
episodes, loading the embedder a few hundred more, and sampling requests (which reads the
review texts again) another two hundred, so per cell they were a third of the work of the
whole plan; per process they are paid once. A domain is keyed by its files' paths, sizes
and modification times, so data rewritten in place is read again. What is lent is shared:
callers never change it.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TypeVar

from recmarket.data.domain import Domain, DomainFiles, domain_files, load_domain
from recmarket.data.episodes import Request, sample_requests
from recmarket.data.settings import EpisodeConfig
from recmarket.embedding import Embedder, load_embedder
from recmarket.embedding.settings import EmbedderConfig

T = TypeVar("T")

# What a process keeps, by weight: the oldest entries are dropped past it. Every built-in
# domain and request sample fits many times over; a long run's samples (100,000 requests
# hold about 0.8 GB) are not kept at all, so a run over several such domains holds one.
DOMAIN_ROWS_KEPT = 2_000_000  # reviews of the domains kept (about 110 MB a million)
REQUESTS_KEPT = 60_000  # requests of the samples kept (about 8 KB each with their texts)

_embedders: dict[str, Embedder] = {}
_domains: OrderedDict[tuple, Domain] = OrderedDict()
_requests: OrderedDict[tuple, list[Request]] = OrderedDict()


def embedder_for(settings: EmbedderConfig) -> Embedder:
    """The embedder these settings name, loaded once per process."""
    key = settings.model_dump_json()
    if key not in _embedders:
        _embedders[key] = load_embedder(settings)
    return _embedders[key]


def _stamp(path: Path) -> tuple[str, int, int]:
    status = path.stat()
    return str(path.resolve()), status.st_size, status.st_mtime_ns


def kept(
    memo: OrderedDict,
    key: object,
    load: Callable[[], T],
    weight: Callable[[T], int],
    most: int,
    expected: int = 0,
) -> T:
    """``memo[key]``, loaded when missing. An entry heavier than ``most`` on its own is
    handed out but not kept (its run holds it while it needs it); otherwise the least
    recently used entries are dropped while the entries weigh more than ``most`` in all,
    before loading as far as the ``expected`` weight of the new entry says (so two heavy
    entries are not held at once)."""
    if key in memo:
        memo.move_to_end(key)
        return memo[key]
    while memo and sum(weight(v) for v in memo.values()) + min(expected, most) > most:
        memo.popitem(last=False)
    value = load()
    if weight(value) <= most:
        memo[key] = value
        while sum(weight(v) for v in memo.values()) > most:
            memo.popitem(last=False)
    return value


def _key(files: DomainFiles, min_interactions: int, strict: bool) -> tuple:
    return (_stamp(files.reviews), _stamp(files.meta), min_interactions, strict)


def domain_for(directory: Path, name: str, min_interactions: int, strict: bool = False) -> Domain:
    """Domain ``name`` in ``directory``, loaded once per process for these settings."""
    return _domain(domain_files(directory, name), min_interactions, strict)


def _domain(files: DomainFiles, min_interactions: int, strict: bool) -> Domain:
    load = partial(load_domain, files, min_interactions=min_interactions, strict=strict)
    key = _key(files, min_interactions, strict)
    return kept(_domains, key, load, lambda d: len(d.interactions), DOMAIN_ROWS_KEPT)


def requests_for(
    directory: Path, name: str, episodes: EpisodeConfig, seed: int, strict: bool = False
) -> tuple[Domain, list[Request]]:
    """The domain and its requests for these episode settings and seed."""
    files = domain_files(directory, name)
    domain = _domain(files, episodes.min_interactions, strict)
    key = (*_key(files, episodes.min_interactions, strict), episodes, seed)
    sample = partial(sample_requests, domain, episodes, seed)
    return domain, kept(_requests, key, sample, len, REQUESTS_KEPT, episodes.requests)
