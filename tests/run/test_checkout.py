"""The commit a run records: that of the checkout whose files the running code is, found
through pip's record of the directory a plain ``pip install .`` built from, and only while
that directory still holds the same files."""

import json
import subprocess
from pathlib import Path

import pytest

from recmarket.run import provenance


def git(where: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=where,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


@pytest.fixture
def installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """An installed copy of a tiny package (not a checkout) and the checkout it was built
    from, as pip's direct_url.json names it."""
    source = tmp_path / "repo"
    package = source / "src" / "recmarket"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("x = 1\n")
    git(source, "init", "-q")
    git(source, "add", ".")
    git(source, "commit", "-qm", "first")
    site = tmp_path / "site" / "recmarket"
    site.mkdir(parents=True)
    (site / "__init__.py").write_text("x = 1\n")

    class Dist:
        def read_text(self, name: str) -> str:
            assert name == "direct_url.json"
            return json.dumps({"url": source.as_uri(), "dir_info": {}})

    monkeypatch.setattr(provenance, "distribution", lambda _: Dist())
    monkeypatch.setattr(provenance, "PACKAGE", site)
    for cached in (provenance.checkout, provenance.git_commit, provenance.checkout_dirty):
        cached.cache_clear()
    yield site, source
    for cached in (provenance.checkout, provenance.git_commit, provenance.checkout_dirty):
        cached.cache_clear()


def test_a_plain_install_records_the_commit_it_was_built_from(installed) -> None:
    _, source = installed
    assert provenance.installed_from() == source
    assert provenance.git_commit() == git(source, "rev-parse", "HEAD")
    assert provenance.checkout_dirty() is False


def test_a_checkout_that_moved_on_since_the_install_says_nothing(installed) -> None:
    site, source = installed
    (source / "src" / "recmarket" / "__init__.py").write_text("x = 2\n")
    assert not provenance.same_code(site, source / "src" / "recmarket")
    assert provenance.git_commit() is None and provenance.checkout_dirty() is None


def test_an_index_or_editable_install_names_no_directory(monkeypatch) -> None:
    for record in (
        {"url": "https://files.example/r.whl", "archive_info": {}},
        {"url": "file:///src/r", "dir_info": {"editable": True}},
    ):

        class Dist:
            def read_text(self, name: str, record: dict = record) -> str:
                return json.dumps(record)

        found = Dist()
        monkeypatch.setattr(provenance, "distribution", lambda _, d=found: d)
        assert provenance.installed_from() is None
