"""What a process loads once and lends to every cell it runs: the embedder of each setting
and each domain's data.

A reproduce worker runs dozens of cells over the same three domains. Reading a domain's
files costs about as much as a few hundred of its episodes and loading the embedder a few
hundred more, so loading them per cell was a third of the work of the whole plan; per process
they are paid once. A domain is keyed by its files' paths, sizes and modification times,
so data rewritten in place is read again.
"""

from __future__ import annotations

from collections import OrderedDict
from pathlib import Path

from recmarket.data.domain import Domain, DomainFiles, domain_files, load_domain
from recmarket.embedding import Embedder, load_embedder
from recmarket.embedding.settings import EmbedderConfig

DOMAINS_KEPT = 6  # the three built-in domains and some to spare; older ones are dropped

_embedders: dict[str, Embedder] = {}
_domains: OrderedDict[tuple, Domain] = OrderedDict()


def embedder_for(settings: EmbedderConfig) -> Embedder:
    key = settings.model_dump_json()
    if key not in _embedders:
        _embedders[key] = load_embedder(settings)
    return _embedders[key]


def _stamp(path: Path) -> tuple[str, int, int]:
    status = path.stat()
    return str(path.resolve()), status.st_size, status.st_mtime_ns


def domain_for(directory: Path, name: str, min_interactions: int, strict: bool = False) -> Domain:
    files: DomainFiles = domain_files(directory, name)
    key = (_stamp(files.reviews), _stamp(files.meta), min_interactions, strict)
    if key in _domains:
        _domains.move_to_end(key)
        return _domains[key]
    domain = load_domain(files, min_interactions=min_interactions, strict=strict)
    _domains[key] = domain
    while len(_domains) > DOMAINS_KEPT:
        _domains.popitem(last=False)
    return domain
