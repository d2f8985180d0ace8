"""Bad input: one clear message, a nonzero exit, and nothing already written lost."""

import gzip
import os
import resource
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from recmarket.cli import app
from recmarket.data import BUNDLED_DATA_DIR
from tests.data.test_domain import newest_first
from tests.fixtures import meta, write_jsonl

runner = CliRunner()


def fails(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code != 0, result.output
    assert "Traceback" not in result.output
    return " ".join(result.stderr.split())


def data_dir(tmp_path: Path, reviews: bytes | None = None, metas: list | None = None) -> Path:
    d = tmp_path / "data"
    d.mkdir(exist_ok=True)
    if reviews is None:
        rows = []
        for u in range(40):
            rows += newest_first(f"user{u:03d}", [f"i{k:02d}" for k in range(u % 10, u % 10 + 6)])
        reviews = b"".join((__import__("json").dumps(r) + "\n").encode() for r in rows)
    (d / "Tiny.jsonl.gz").write_bytes(reviews)
    write_jsonl(
        d / "meta_Tiny.jsonl",
        metas if metas is not None else [meta(f"i{k:02d}") for k in range(20)],
    )
    return d


def run_args(data: Path, tmp_path: Path, *extra: str) -> list[str]:
    return [
        "run",
        "--data",
        str(data),
        "--domain",
        "Tiny",
        "--requests",
        "12",
        "--out",
        str(tmp_path / "out"),
        *extra,
    ]


def test_truncated_gzip(tmp_path: Path) -> None:
    whole = gzip.compress(
        b"".join(b'{"x": %d, "pad": "%s"}\n' % (i, b"y" * 50) for i in range(5000))
    )
    data = data_dir(tmp_path, reviews=whole[: len(whole) // 2])
    assert "truncated or corrupt" in fails(*run_args(data, tmp_path))


def test_a_review_file_that_is_not_json(tmp_path: Path) -> None:
    data = data_dir(tmp_path, reviews=b"user,item,rating\nA,B,5\nC,D,4\n")
    message = fails(*run_args(data, tmp_path))
    assert "no usable review line" in message and "Tiny.jsonl.gz:1: invalid JSON" in message


def test_meta_with_no_matching_items(tmp_path: Path) -> None:
    data = data_dir(tmp_path, metas=[meta("zzz")])
    assert "no meta record matches any reviewed item" in fails(*run_args(data, tmp_path))


def test_a_category_with_no_eligible_users(tmp_path: Path) -> None:
    rows = [r for u in range(30) for r in newest_first(f"u{u}", ["i01", "i02"])]
    data = data_dir(
        tmp_path,
        reviews=gzip.compress(
            b"".join((__import__("json").dumps(r) + "\n").encode() for r in rows)
        ),
    )
    assert "no eligible user" in fails(*run_args(data, tmp_path))


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--k", "8"], "--k: K=8 cannot exceed the number of platforms N=6"),
        (["--policies", "strict,loud,strict,strict,strict,strict"], "unknown policy name 'loud'"),
        (["--rho", "-0.1"], "--rho: Input should be greater than or equal to 0"),
    ],
)
def test_bad_market_settings(tmp_path: Path, flags: list[str], message: str) -> None:
    assert message in fails(*run_args(data_dir(tmp_path), tmp_path, *flags))


def test_config_file_with_an_unknown_key(tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_text("[market]\nplatforms = 6\n")
    message = fails(*run_args(data_dir(tmp_path), tmp_path, "--config", str(config)))
    assert "market.platforms in" in message and "Extra inputs are not permitted" in message


def test_output_dir_of_another_config_keeps_its_run(tmp_path: Path) -> None:
    data = data_dir(tmp_path)
    assert runner.invoke(app, run_args(data, tmp_path)).exit_code == 0
    before = (tmp_path / "out" / "run.sqlite").read_bytes()
    assert "holds a run with a different configuration" in fails(
        *run_args(data, tmp_path, "--seed", "3")
    )
    with sqlite3.connect(tmp_path / "out" / "run.sqlite") as db:
        assert db.execute("SELECT COUNT(*) FROM episodes").fetchone()[0] == 12
    assert len((tmp_path / "out" / "run.sqlite").read_bytes()) == len(before)


@pytest.fixture
def read_only_dir(tmp_path: Path):
    target = tmp_path / "ro"
    target.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "ro,size=1m", "tmpfs", str(target)], capture_output=True
    )
    if mounted.returncode != 0:
        pytest.skip("cannot mount a read-only tmpfs here (needs root)")
    yield target
    subprocess.run(["umount", str(target)], check=False)


def test_a_read_only_output_dir(tmp_path: Path, read_only_dir: Path) -> None:
    message = fails(
        *run_args(data_dir(tmp_path), tmp_path)[:-2], "--out", str(read_only_dir / "run")
    )
    assert "Read-only file system" in message


def _limit_file_size() -> None:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # writes fail with EFBIG instead of a kill
    # Below what 400 offline episodes write (each batch of 32 adds pages to the WAL; an
    # offline run keeps the calls of the first episodes only, about 300 bytes an episode)
    resource.setrlimit(resource.RLIMIT_FSIZE, (100_000, 100_000))


@pytest.mark.slow  # end to end: a run in a tiny filesystem, then resumed
def test_a_full_disk_stops_cleanly_and_the_run_resumes(tmp_path: Path) -> None:
    env = dict(os.environ, RECMARKET_CACHE=str(tmp_path / "cache"))
    args = [
        sys.executable,
        "-m",
        "recmarket",
        "run",
        "--data",
        str(BUNDLED_DATA_DIR),
        "--domain",
        "Video_Games",
        "--requests",
        "400",
        "--json",
    ]
    clean = subprocess.run(
        [*args, "--out", str(tmp_path / "clean")], env=env, capture_output=True, text=True
    )
    assert clean.returncode == 0, clean.stderr
    full = subprocess.run(
        [*args, "--out", str(tmp_path / "full")],
        env=env,
        text=True,
        capture_output=True,
        preexec_fn=_limit_file_size,
    )
    assert full.returncode == 2, full.stderr
    said = " ".join(full.stderr.split())
    assert "full/run.sqlite" in said and "disk full" in said and "Traceback" not in said
    with sqlite3.connect(tmp_path / "full" / "run.sqlite") as db:
        kept = db.execute("SELECT COUNT(*) FROM episodes").fetchone()[0]
    assert 0 < kept < 400
    resumed = subprocess.run(
        [*args, "--out", str(tmp_path / "full")], env=env, capture_output=True, text=True
    )
    assert resumed.returncode == 0, resumed.stderr

    def rows(out: Path) -> list:
        with sqlite3.connect(out / "run.sqlite") as db:
            return db.execute("SELECT * FROM episodes ORDER BY domain, ord").fetchall()

    assert rows(tmp_path / "full") == rows(tmp_path / "clean")
