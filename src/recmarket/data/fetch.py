"""Downloading the official Amazon Reviews'23 raw files, resumably.

A download goes to ``NAME.part`` and is renamed only when complete and checked: as long as
the server declared, and a whole gzip stream (every member to its end marker, CRC and
length verified) whose first line is a JSON object, so neither an error page served with
status 200 (a proxy's login page, a mirror's "not found") nor a body cut short without a
declared length ever becomes a data file. A verified file gets a stamp beside it
(``NAME.verified``: its size and modification time), so a rerun trusts it without reading
it again; a file without a matching stamp is verified in full, and downloaded again if it
fails. An interrupted download is resumed with an HTTP Range request (a server that ignores
Range restarts it). Connection failures are reported at once with the URL, so a machine
without network learns that in seconds, not after a long timeout.
"""

from __future__ import annotations

import gzip
import json
import zlib
from collections.abc import Callable
from pathlib import Path

import httpx

from recmarket.data.raw import GZIP_MAGIC, DataError

OFFICIAL_BASE_URL = "https://mcauleylab.ucsd.edu/public_datasets/data/amazon_2023/raw"
CATEGORIES = (
    "All_Beauty",
    "Amazon_Fashion",
    "Appliances",
    "Arts_Crafts_and_Sewing",
    "Automotive",
    "Baby_Products",
    "Beauty_and_Personal_Care",
    "Books",
    "CDs_and_Vinyl",
    "Cell_Phones_and_Accessories",
    "Clothing_Shoes_and_Jewelry",
    "Digital_Music",
    "Electronics",
    "Gift_Cards",
    "Grocery_and_Gourmet_Food",
    "Handmade_Products",
    "Health_and_Household",
    "Health_and_Personal_Care",
    "Home_and_Kitchen",
    "Industrial_and_Scientific",
    "Kindle_Store",
    "Magazine_Subscriptions",
    "Movies_and_TV",
    "Musical_Instruments",
    "Office_Products",
    "Patio_Lawn_and_Garden",
    "Pet_Supplies",
    "Software",
    "Sports_and_Outdoors",
    "Subscription_Boxes",
    "Tools_and_Home_Improvement",
    "Toys_and_Games",
    "Video_Games",
    "Unknown",
)
CHUNK = 1 << 20
FIRST_LINE_LIMIT = 16 << 20  # a meta line with long descriptions is well under this

# progress(file name, bytes done, bytes total or None)
Progress = Callable[[str, int, int | None], None]


def official_files(category: str, base_url: str = OFFICIAL_BASE_URL) -> list[tuple[str, str]]:
    """(URL, local file name) of the review and meta files of one category."""
    if category not in CATEGORIES:
        close = [c for c in CATEGORIES if c.lower().startswith(category.lower()[:4])]
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise DataError(f"unknown category {category!r}{hint} (see recmarket data fetch --help)")
    base = base_url.rstrip("/")
    return [
        (f"{base}/review_categories/{category}.jsonl.gz", f"{category}.jsonl.gz"),
        (f"{base}/meta_categories/meta_{category}.jsonl.gz", f"meta_{category}.jsonl.gz"),
    ]


def not_a_data_file(path: Path) -> str | None:
    """Why ``path`` is not a whole gzip JSON-lines file (what it holds instead), or None.
    The whole stream is read: a gzip cut short decodes fine up to where it stops."""
    with path.open("rb") as fh:
        head = fh.read(64)
    if not head.startswith(GZIP_MAGIC):
        return f"not gzip; it starts with {head[:48]!r}"
    try:
        with gzip.open(path, "rb") as fh:
            first = fh.readline(FIRST_LINE_LIMIT)
            while fh.read(CHUNK):  # to the end: CRC and length of every member checked
                pass
    except EOFError as exc:
        return f"a truncated gzip stream ({exc})"
    except (OSError, zlib.error) as exc:
        return f"a broken gzip stream ({exc})"
    try:
        record = json.loads(first)
    except ValueError:
        return f"gzip, but its first line is not JSON: {first[:48]!r}"
    if not isinstance(record, dict):
        return f"gzip, but its first line is a JSON {type(record).__name__}, not an object"
    return None


def _stamp(path: Path) -> Path:
    return path.with_name(path.name + ".verified")


def _state(path: Path) -> dict[str, int]:
    stat = path.stat()
    return {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns}


def _mark_verified(path: Path) -> None:
    _stamp(path).write_text(json.dumps(_state(path)))


def verified(path: Path) -> bool:
    """Whether ``path`` is a data file: by its stamp when that matches the file as it is,
    else by reading it whole (and stamping it when it passes)."""
    try:
        if json.loads(_stamp(path).read_text()) == _state(path):
            return True
    except (OSError, ValueError):
        pass
    if not_a_data_file(path) is not None:
        return False
    _mark_verified(path)
    return True


def download(url: str, dest: Path, progress: Progress, *, timeout: float = 30.0) -> Path:
    """Download ``url`` to ``dest``, resuming a previous partial download. A ``dest`` that
    fails verification (an error page or a truncated file saved by an older version) is
    downloaded again."""
    if dest.is_file() and verified(dest):
        return dest
    part = dest.with_name(dest.name + ".part")
    done = part.stat().st_size if part.is_file() else 0
    headers = {"Range": f"bytes={done}-"} if done else {}
    try:
        with httpx.stream(
            "GET",
            url,
            headers=headers,
            follow_redirects=True,
            timeout=httpx.Timeout(timeout, connect=10.0),
        ) as response:
            if response.status_code == 416:  # nothing left to fetch: the part is whole
                return _checked_into_place(url, part, dest, "")
            if response.status_code not in (200, 206):
                raise DataError(f"{url}: server answered HTTP {response.status_code}")
            if response.status_code == 200:
                done = 0  # the server ignored Range: start over
            content_type = response.headers.get("Content-Type", "")
            length = response.headers.get("Content-Length")
            total = done + int(length) if length is not None else None
            with part.open("ab" if done else "wb") as fh:
                for chunk in response.iter_bytes(CHUNK):
                    fh.write(chunk)
                    done += len(chunk)
                    progress(dest.name, done, total)
    except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
        raise DataError(f"{url}: cannot connect ({exc}); is this machine online?") from exc
    except httpx.HTTPError as exc:
        kept = f"; {done} bytes kept in {part}, rerun to resume" if done else ""
        raise DataError(f"{url}: download interrupted ({exc}){kept}") from exc
    if total is not None and done != total:
        raise DataError(f"{url}: got {done} of {total} bytes; rerun to resume")
    return _checked_into_place(url, part, dest, content_type)


def _checked_into_place(url: str, part: Path, dest: Path, content_type: str) -> Path:
    """Rename a finished download into place if it is a data file; otherwise remove it (a
    rerun starts afresh rather than resuming an error page) and say what arrived."""
    problem = not_a_data_file(part)
    if problem is not None:
        part.unlink()
        served = f" (served as {content_type})" if content_type else ""
        raise DataError(f"{url}: the download is not a data file: {problem}{served}; not saved")
    part.replace(dest)
    _mark_verified(dest)
    return dest


def fetch_category(
    category: str, dest: Path, progress: Progress, base_url: str = OFFICIAL_BASE_URL
) -> list[Path]:
    """Download a category's review and meta files into ``dest`` (resuming partial
    downloads); their paths."""
    dest.mkdir(parents=True, exist_ok=True)
    return [
        download(url, dest / name, progress) for url, name in official_files(category, base_url)
    ]
