"""Data sources: a directory as given, the bundle by default, and demo:N markets made once
in the cache, byte for byte the generator's, and refused outside their range."""

import errno
import os
from pathlib import Path

import pytest
from pydantic import ValidationError

from recmarket.config import RunConfig
from recmarket.data import BUNDLED_DATA_DIR, sources
from recmarket.data.demo_listings import DOMAINS
from recmarket.data.sources import data_directory, demo_users
from recmarket.data.synthetic import write_domain


def test_a_directory_is_read_as_given_and_none_is_the_bundle(tmp_path: Path) -> None:
    assert data_directory(None, tmp_path) == BUNDLED_DATA_DIR
    assert data_directory(tmp_path / "mine", tmp_path) == tmp_path / "mine"
    assert demo_users(Path("demo")) is None and demo_users("demo:120") == 120


@pytest.mark.slow  # end to end: keeps the default selection under 4 minutes
def test_a_demo_market_is_the_generators_bytes_made_once(tmp_path: Path) -> None:
    made = data_directory(Path("demo:120"), tmp_path / "cache")
    assert made.parent == tmp_path / "cache" / "demo-markets"
    assert sorted(p.name for p in made.iterdir()) == sorted(
        name for domain in DOMAINS for name in (f"{domain}.jsonl.gz", f"meta_{domain}.jsonl.gz")
    )
    reference = tmp_path / "reference"  # one domain is enough to see the generator's bytes
    files = [p.name for p in write_domain(DOMAINS[0], reference, n_users=120)]
    assert all((made / f).read_bytes() == (reference / f).read_bytes() for f in files)
    stamps = {f: (made / f).stat().st_mtime_ns for f in files}
    assert data_directory(Path("demo:120"), tmp_path / "cache") == made
    assert {f: (made / f).stat().st_mtime_ns for f in files} == stamps  # not made again
    assert [p.name for p in made.parent.iterdir()] == [made.name]  # no half-built folder


def test_a_demo_markets_generator_is_part_of_the_runs_identity(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A changed generator makes another market: its runs hash differently, so a store of
    the old market is never resumed on the new one; a directory's runs do not depend on it."""
    demo, bundled = (RunConfig.model_validate({"data": d}) for d in ("demo:3000", None))
    before = demo.digest(), bundled.digest()
    monkeypatch.setattr("recmarket.config.generator_digest", lambda: "another generator")
    assert demo.digest() != before[0] and bundled.digest() == before[1]


def test_a_demo_market_outside_its_range_is_refused_at_the_edge() -> None:
    with pytest.raises(ValidationError, match=r"data\n.*demo:5: a demo market has 100 to"):
        RunConfig.model_validate({"data": "demo:5"})
    assert RunConfig.model_validate({"data": "demo:3000"}).data == Path("demo:3000")


def test_a_demo_market_the_disk_cannot_hold_is_named_and_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def disk_fills(domain: str, out: Path, **_: object) -> None:
        (out / f"{domain}.jsonl.gz").write_bytes(b"\x1f\x8b half")
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(sources.synthetic, "write_domain", disk_fills)
    with pytest.raises(OSError, match=r"No space left on device: '.*demo-markets/120-users-"):
        data_directory(Path("demo:120"), tmp_path)
    assert list((tmp_path / "demo-markets").iterdir()) == []  # no half market for a rerun
