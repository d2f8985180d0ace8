"""Where a run's domains come from: a directory of Amazon Reviews'23 files, the bundled demo
domains, or a larger demo market made on demand.

``data = "demo:3000"`` names the demo generator's market with 3,000 simulated reviewers a
domain (about nine in ten of them eligible), for experiments that need more requests than
the bundle's 1,500 or so a domain: long histories, above all. The generator is
deterministic, so the market is written once into the cache directory, under a name that
carries the generator's own source digest (a changed generator writes a new market, never
reuses an old one), and every later run reads the same bytes. The digest is also in the
run's configuration hash, so a store never holds episodes of two generators.
"""

from __future__ import annotations

import functools
import hashlib
import re
import shutil
import tempfile
from pathlib import Path

from recmarket.data import BUNDLED_DATA_DIR, demo_listings, demo_vocabulary, synthetic
from recmarket.files import naming

DEMO_MARKET = re.compile(r"demo:(\d+)")
DEMO_USERS = (100, 200_000)  # fewer leaves too few eligible requests; more is hours of disk


def demo_users(data: Path | str | None) -> int | None:
    """The reviewers a domain of a ``demo:N`` market has (None: not such a market); a bad
    count is refused with the range."""
    found = DEMO_MARKET.fullmatch(str(data)) if data is not None else None
    if found is None:
        return None
    users = int(found[1])
    low, high = DEMO_USERS
    if not low <= users <= high:
        raise ValueError(f"{data}: a demo market has {low:,} to {high:,} reviewers a domain")
    return users


@functools.cache
def generator_digest() -> str:
    """A digest of the demo generator's source as this process loaded it: it names a
    demo:N market's folder and is part of the identity of every run on one, so a changed
    generator never resumes a store made with the old one (read once a process; runs ask
    for it per domain and per hash)."""
    digest = hashlib.sha256()
    for module in (synthetic, demo_listings, demo_vocabulary):
        digest.update(Path(str(module.__file__)).read_bytes())
    return digest.hexdigest()[:12]


def data_directory(data: Path | None, cache_dir: Path) -> Path:
    """The directory a run reads: ``data`` itself, the bundle when it is None, or a
    ``demo:N`` market, written into ``cache_dir`` the first time it is asked for."""
    users = demo_users(data)
    if data is None:
        return BUNDLED_DATA_DIR
    if users is None:
        return data
    target = cache_dir / "demo-markets" / f"{users}-users-{generator_digest()}"
    if target.is_dir():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    building = Path(tempfile.mkdtemp(prefix=".building-", dir=target.parent))
    try:
        try:
            for domain in demo_listings.DOMAINS:
                synthetic.write_domain(domain, building, n_users=users)
        except OSError as exc:  # a full disk's write error names no file: name the market
            raise naming(exc, target) from exc
        try:
            building.rename(target)  # whole or not at all; a concurrent maker may win
        except OSError:
            if not target.is_dir():
                raise
    finally:
        shutil.rmtree(building, ignore_errors=True)
    return target
