"""Downloads against a loopback HTTP server that the test starts (no network)."""

import gzip
import json
import re
import threading
import time
from collections.abc import Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest

from recmarket.data.fetch import download, fetch_category, official_files
from recmarket.data.raw import DataError


class RangeHandler(SimpleHTTPRequestHandler):
    """Serves files with support for ``Range: bytes=N-``; records what was asked."""

    ranges: ClassVar[list[str | None]] = []

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        path = Path(self.translate_path(self.path))
        if not path.is_file():
            self.send_error(404)
            return
        data = path.read_bytes()
        asked = self.headers.get("Range")
        type(self).ranges.append(asked)
        start = int(asked.split("=")[1].rstrip("-")) if asked else 0
        self.send_response(206 if asked else 200)
        if path.name.startswith("cut-"):  # half the body, no declared length, then close
            self.end_headers()
            self.wfile.write(data[start : len(data) // 2])
            return
        declared = len(data) - start + (1000 if path.name.startswith("short-") else 0)
        self.send_header("Content-Length", str(declared))
        self.end_headers()
        self.wfile.write(data[start:])


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    root = tmp_path / "srv"
    (root / "review_categories").mkdir(parents=True)
    (root / "meta_categories").mkdir()
    RangeHandler.ranges = []
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), partial(RangeHandler, directory=str(root)))
    thread = threading.Thread(target=httpd.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", root
    httpd.shutdown()


def jsonl_gz(n_lines: int, pad: int = 0) -> bytes:
    """A gzip JSON-lines payload; ``pad`` random-ish bytes per line keep it large."""
    lines = (json.dumps({"i": i, "pad": f"{i * 7919:x}" * pad}) + "\n" for i in range(n_lines))
    return gzip.compress("".join(lines).encode(), mtime=0)


def test_fetch_downloads_both_files(server: tuple[str, Path], tmp_path: Path) -> None:
    url, root = server
    reviews, metas = jsonl_gz(20_000, pad=20), jsonl_gz(10)
    (root / "review_categories/Video_Games.jsonl.gz").write_bytes(reviews)
    (root / "meta_categories/meta_Video_Games.jsonl.gz").write_bytes(metas)
    seen = []
    paths = fetch_category(
        "Video_Games", tmp_path / "out", lambda n, d, t: seen.append((n, d, t)), base_url=url
    )
    assert [p.name for p in paths] == ["Video_Games.jsonl.gz", "meta_Video_Games.jsonl.gz"]
    assert paths[0].read_bytes() == reviews
    assert seen[-1] == ("meta_Video_Games.jsonl.gz", len(metas), len(metas))
    assert not list((tmp_path / "out").glob("*.part"))


@pytest.mark.parametrize(
    ("payload", "said"),
    [
        (b"<html><body>Please sign in</body></html>", "not gzip; it starts with b'<html>"),
        (gzip.compress(b"<html>not found</html>\n"), "first line is not JSON"),
        (gzip.compress(b"[1, 2]\n"), "a JSON list, not an object"),
        (jsonl_gz(50)[:40], "truncated gzip stream"),
    ],
    ids=["html", "gzipped-html", "json-list", "truncated-gzip"],
)
def test_a_download_that_is_not_data_is_refused_and_not_saved(
    server: tuple[str, Path], tmp_path: Path, payload: bytes, said: str
) -> None:
    url, root = server
    (root / "review_categories/Books.jsonl.gz").write_bytes(payload)
    dest = tmp_path / "Books.jsonl.gz"
    with pytest.raises(DataError, match=re.escape(said)):
        download(f"{url}/review_categories/Books.jsonl.gz", dest, lambda *a: None)
    assert not dest.exists() and not list(tmp_path.glob("*.part"))


def test_an_error_page_saved_earlier_is_downloaded_again(
    server: tuple[str, Path], tmp_path: Path
) -> None:
    url, root = server
    (root / "review_categories/Books.jsonl.gz").write_bytes(jsonl_gz(5))
    dest = tmp_path / "Books.jsonl.gz"
    dest.write_bytes(b"<html>502 Bad Gateway</html>")
    download(f"{url}/review_categories/Books.jsonl.gz", dest, lambda *a: None)
    assert dest.read_bytes() == jsonl_gz(5)


def test_interrupted_download_resumes_with_a_range_request(
    server: tuple[str, Path], tmp_path: Path
) -> None:
    url, root = server
    payload = jsonl_gz(60_000, pad=10)
    (root / "review_categories/Software.jsonl.gz").write_bytes(payload)
    dest = tmp_path / "Software.jsonl.gz"
    (tmp_path / "Software.jsonl.gz.part").write_bytes(payload[:300_000])
    assert len(payload) > 400_000
    download(f"{url}/review_categories/Software.jsonl.gz", dest, lambda *a: None)
    assert dest.read_bytes() == payload
    assert RangeHandler.ranges == ["bytes=300000-"]


def test_no_network_fails_at_once_with_the_url(tmp_path: Path) -> None:
    start = time.monotonic()
    with pytest.raises(DataError, match=r"127\.0\.0\.1:9/.*cannot connect"):
        download("http://127.0.0.1:9/x.jsonl.gz", tmp_path / "x.jsonl.gz", lambda *a: None)
    assert time.monotonic() - start < 5


def test_missing_file_and_unknown_category(server: tuple[str, Path], tmp_path: Path) -> None:
    url, _ = server
    with pytest.raises(DataError, match="HTTP 404"):
        download(f"{url}/review_categories/Nope.jsonl.gz", tmp_path / "n", lambda *a: None)
    with pytest.raises(DataError, match=r"unknown category 'Video_Game'.*Video_Games"):
        official_files("Video_Game")


def test_a_body_cut_short_without_a_declared_length_is_refused_and_not_saved(
    server: tuple[str, Path], tmp_path: Path
) -> None:
    url, root = server
    (root / "review_categories/cut-Books.jsonl.gz").write_bytes(jsonl_gz(20_000, pad=20))
    dest = tmp_path / "Books.jsonl.gz"
    with pytest.raises(DataError, match="truncated gzip stream"):
        download(f"{url}/review_categories/cut-Books.jsonl.gz", dest, lambda *a: None)
    assert not dest.exists() and not list(tmp_path.glob("*.part"))


def test_a_body_shorter_than_declared_is_never_renamed_into_place(
    server: tuple[str, Path], tmp_path: Path
) -> None:
    url, root = server
    (root / "review_categories/short-Books.jsonl.gz").write_bytes(jsonl_gz(5_000, pad=10))
    dest = tmp_path / "Books.jsonl.gz"
    with pytest.raises(DataError, match="download interrupted"):
        download(f"{url}/review_categories/short-Books.jsonl.gz", dest, lambda *a: None)
    assert not dest.exists()


def test_a_truncated_file_saved_earlier_is_fetched_again_and_a_verified_one_is_not(
    server: tuple[str, Path], tmp_path: Path
) -> None:
    url, root = server
    payload = jsonl_gz(20_000, pad=20)
    (root / "review_categories/Books.jsonl.gz").write_bytes(payload)
    dest = tmp_path / "Books.jsonl.gz"
    dest.write_bytes(payload[: len(payload) // 2])  # what an older version kept, unstamped
    download(f"{url}/review_categories/Books.jsonl.gz", dest, lambda *a: None)
    assert dest.read_bytes() == payload and RangeHandler.ranges == [None]
    (root / "review_categories/Books.jsonl.gz").unlink()  # a request now would be a 404
    assert download(f"{url}/review_categories/Books.jsonl.gz", dest, lambda *a: None) == dest
    assert RangeHandler.ranges == [None]  # the stamp vouched for it: nothing asked, nothing read
